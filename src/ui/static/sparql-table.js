/**
 * YASR's table view, made to stay responsive on large answers. YASR already pages its table
 * (DataTables, rows drawn only for the shown page), yet a 10,000-row answer froze the tab
 * for seconds: its cell renderer runs DOMPurify on every cell of every row, and DataTables
 * calls it for all rows three times before the first page shows: to guess each column's
 * type, to measure the widest strings for column widths, and to build the filter index.
 * This keeps YASR's table (filter, page size, simple view, ellipsis, resizing) and removes
 * those passes: columns are declared text, widths come from the page drawn, and the filter
 * and sort values are the plain term values (they never become markup). Only the shown
 * page's cells go through YASR's sanitised HTML. The "All" page size, which would draw
 * every row, is not offered.
 */

/** Rows a page shows unless the user picked another size. */
export const DEFAULT_PAGE_SIZE = 100;

/** Page sizes offered; YASR's list without "All" (-1). */
const PAGE_SIZES = [10, 50, 100, 200, 1000];

/**
 * DataTables' counter ("Rows 1–100 of 10,000") and the names its pager buttons read out
 * (their text is only "<<", "<", ">", ">>").
 */
const WORDING = {
  info: "Rows _START_–_END_ of _TOTAL_",
  infoEmpty: "No rows",
  infoFiltered: "(filtered from _MAX_)",
  aria: {
    paginate: {
      first: "First page",
      previous: "Previous page",
      next: "Next page",
      last: "Last page",
    },
  },
};

/** A page size YASR may have kept in localStorage, or the default when it is "All" or unset. */
function pageSizeOf(persistentConfig) {
  const size = persistentConfig?.pageSize;
  return PAGE_SIZES.includes(size) ? size : DEFAULT_PAGE_SIZE;
}

/** For DataTables' filter and sort passes: the term's value as text, not its markup. */
function plainValueRenderer(render) {
  return (data, type, row, meta) => {
    if (data !== "" && (!type || type === "filter" || type === "sort" || type === "type")) {
      return data.value;
    }
    return render(data, type, row, meta);
  };
}

/** A cut-off cell's first click shows it whole (and does not follow its link). */
function expandCell(event) {
  event.currentTarget.classList.add("expanded");
  event.preventDefault();
}

/**
 * Replaces YASR's "table" plugin (same name, so YASGUI picks it for SELECT answers as
 * before) with the subclass below.
 */
export function installPagedTable(Yasr) {
  const YasrTable = Yasr.plugins.table;
  const tableConfig = YasrTable.defaults.tableConfig;
  // Widths from the drawn page: DataTables would otherwise render every row to find the
  // widest string of each column.
  tableConfig.autoWidth = false;
  // Text columns: DataTables would otherwise render every cell to guess a type.
  tableConfig.columnDefs = [{ targets: "_all", type: "string" }];
  tableConfig.language = { ...tableConfig.language, ...WORDING };

  class PagedTable extends YasrTable {
    /**
     * YASR's check for cut-off cells (the ellipsis view), with every cell measured before
     * any class changes: YASR's own alternates the two, a fresh layout for each cell.
     */
    setEllipsisHandlers = () => {
      const cells = this.dataTable?.cells({ page: "current" }).nodes().toArray() ?? [];
      // Empty cells and row numbers hold no term to cut.
      const contents = cells.map((cell) => cell?.firstElementChild)
        .filter((content) => content?.firstElementChild);
      const cut = contents.map((content) =>
        content.firstElementChild.getBoundingClientRect().width >
          content.getBoundingClientRect().width
      );
      contents.forEach((content, index) => {
        if (cut[index] === content.classList.contains("expandable")) return;
        content.classList.toggle("expandable", cut[index]);
        if (cut[index]) content.addEventListener("click", expandCell, { once: true });
        else content.removeEventListener("click", expandCell);
      });
    };

    draw(persistentConfig) {
      return super.draw({ ...persistentConfig, pageSize: pageSizeOf(persistentConfig) });
    }

    getColumns() {
      // The first column is the row number; the others hold RDF terms.
      return super.getColumns().map((column, index) =>
        index === 0 ? column : { ...column, render: plainValueRenderer(column.render) }
      );
    }

    drawControls() {
      super.drawControls();
      const sizes = this.tableSizeField;
      if (!sizes) return;
      const shown = this.dataTable?.page.len();
      sizes.replaceChildren(...PAGE_SIZES.map((size) => {
        const option = document.createElement("option");
        option.value = String(size);
        option.textContent = String(size);
        option.selected = size === shown;
        return option;
      }));
      sizes.setAttribute("aria-label", "Rows a page");
    }
  }
  Yasr.registerPlugin("table", PagedTable);
}
