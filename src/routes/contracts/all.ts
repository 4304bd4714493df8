/**
 * Every route contract of the service: the list the OpenAPI document is built from. A test
 * checks it against the routes the app registers, both ways.
 */
import type { RouteContract } from "../../http/route_contract.ts";
import { DOWNLOAD_CONTRACTS } from "./downloads.ts";
import { hashGet, hashPost } from "./hash.ts";
import { INDEXING_CONTRACTS } from "./indexing.ts";
import { BULK_CONTRACTS } from "./bulk.ts";
import { initializeItem } from "./initialize.ts";
import { ITEM_CONTRACTS } from "./items.ts";
import { ITEM_HISTORY_CONTRACTS } from "./item_history.ts";
import { CHANGE_CONTRACTS } from "./changes.ts";
import { HISTORY_ADMIN_CONTRACTS } from "./history_admin.ts";
import { WEBHOOK_ADMIN_CONTRACTS } from "./webhooks_admin.ts";
import { OPERATION_CONTRACTS } from "./operations.ts";
import { searchItems, searchItemsWithDsl } from "./search.ts";
import { SPARQL_CONTRACTS } from "./sparql.ts";
import { TOOL_CONTRACTS } from "./tools.ts";
import { listWorkspaces } from "./catalog.ts";
import { getLabels } from "./labels.ts";
import { getItemCollections } from "./item_collections.ts";
import { CATALOG_ADMIN_CONTRACTS } from "./catalog_admin.ts";
import { WORKBENCH_CONTRACTS } from "./workbench.ts";

/** All contracts, in the order the OpenAPI document lists them. */
export const ALL_CONTRACTS: readonly RouteContract[] = [
  listWorkspaces,
  ...CATALOG_ADMIN_CONTRACTS,
  ...ITEM_CONTRACTS,
  ...ITEM_HISTORY_CONTRACTS,
  ...CHANGE_CONTRACTS,
  ...WEBHOOK_ADMIN_CONTRACTS,
  ...Object.values(DOWNLOAD_CONTRACTS),
  initializeItem,
  hashGet,
  hashPost,
  searchItems,
  searchItemsWithDsl,
  getLabels,
  getItemCollections,
  ...INDEXING_CONTRACTS,
  ...BULK_CONTRACTS,
  ...HISTORY_ADMIN_CONTRACTS,
  ...SPARQL_CONTRACTS,
  ...TOOL_CONTRACTS,
  ...OPERATION_CONTRACTS,
  ...WORKBENCH_CONTRACTS,
];
