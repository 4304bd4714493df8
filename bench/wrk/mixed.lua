-- Mixed read/write load for wrk (bench/load_mixed.ts runs it; see bench/README.md).
--
--   wrk -t2 -c32 -d60s --latency -s mixed.lua URL -- COLLECTION SEEDED THREADS OUTDIR
--
-- Per request: 50% GET /api/item (JSON-LD, Turtle, N-Triples or RDF/XML), 20% downloads
-- (/api/item.ttl|.nt|.rdf|.jsonld), 15% PUT creates of new items, 10% POST updates of seeded
-- items (whole-graph replace, no If-Match), 5% GET /api/search. Reads and updates target
-- the SEEDED items https://data.example.org/id/load/seed-<i>.
--
-- Each thread has its own Lua state and several connections, so answers come back in no
-- fixed order: every request carries an X-Request-Id (the service echoes it) that keys a
-- per-thread table of what was sent. Writes are logged to OUTDIR/thread-<id>.log as they
-- are sent and as they are answered, for the orchestrator to verify afterwards:
--   C-SENT uri | C-ACK uri | C-FAIL uri status
--   U-SENT uri tag | U-ACK uri tag | U-FAIL uri tag status
-- Updates of one seeded item come from one thread only (items are partitioned by thread)
-- and never overlap (an item with an update in flight is not updated again), so the last
-- acknowledged update of an item is the state the service must return.

local ITEM_BASE = "https://data.example.org/id/load/"
local VERSION = "http://example.org/load#version"
local WORDS = { "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel" }
local ACCEPTS = { "application/ld+json", "text/turtle", "application/n-triples",
  "application/rdf+xml" }
local DOWNLOADS = { "ttl", "nt", "rdf", "jsonld" }

-- main state: give each thread its number before its init() runs
local thread_count = 0
local threads = {}
function setup(thread)
  thread_count = thread_count + 1
  thread:set("id", thread_count)
  table.insert(threads, thread)
end

-- thread state
local collection, collection_q, seeded, thread_total, log
local counter = 0
local pending = {}       -- request id -> { kind, uri, tag }
local updating = {}      -- seed index -> true while an update of it is in flight
local owned = {}         -- seed indexes this thread may update
counts = {}              -- "kind status" -> n, read by done() via thread:get

local function urlencode(text)
  return (text:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end

local function item_query(uri)
  return "collection=" .. collection_q .. "&item=" .. urlencode(uri)
end

local function seed_uri(index)
  return ITEM_BASE .. "seed-" .. index
end

-- An item of eight triples; `version` tells the writes apart.
local function item_body(uri, version, n)
  local s = "<" .. uri .. "> "
  local word = WORDS[(n % #WORDS) + 1]
  return s .. "<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Document> .\n"
    .. s .. "<http://purl.org/dc/terms/title> \"Load item " .. word .. " " .. n .. "\"@en .\n"
    .. s .. "<http://purl.org/dc/terms/description> \"Written under load: " .. word .. " words for search\" .\n"
    .. s .. "<http://purl.org/dc/terms/creator> _:c .\n"
    .. "_:c <http://xmlns.com/foaf/0.1/name> \"Load Generator\" .\n"
    .. s .. "<http://example.org/load#n> \"" .. n .. "\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"
    .. s .. "<" .. VERSION .. "> \"" .. version .. "\" .\n"
    .. s .. "<http://purl.org/dc/terms/subject> <http://example.org/topic/" .. word .. "> .\n"
end

local function write_log(line)
  log:write(line, "\n")
end

function init(args)
  collection = args[1]
  collection_q = urlencode(collection)
  seeded = tonumber(args[2])
  thread_total = tonumber(args[3])
  log = assert(io.open(args[4] .. "/thread-" .. id .. ".log", "w"))
  log:setvbuf("line")
  for i = 0, seeded - 1 do
    if i % thread_total == id - 1 then table.insert(owned, i) end
  end
  math.randomseed(id * 7919 + os.time())
end

local function next_id()
  counter = counter + 1
  return "t" .. id .. "-" .. counter
end

local function send(method, path, headers, body, entry)
  local rid = next_id()
  headers["X-Request-Id"] = rid
  pending[rid] = entry
  return wrk.format(method, path, headers, body)
end

local function read_request()
  local uri = seed_uri(math.random(0, seeded - 1))
  local accept = ACCEPTS[math.random(#ACCEPTS)]
  return send("GET", "/api/item?" .. item_query(uri), { Accept = accept }, nil, { kind = "read" })
end

local function download_request()
  local uri = seed_uri(math.random(0, seeded - 1))
  local ext = DOWNLOADS[math.random(#DOWNLOADS)]
  return send("GET", "/api/item." .. ext .. "?" .. item_query(uri), {}, nil, { kind = "download" })
end

local function create_request()
  local n = counter + 1
  local uri = ITEM_BASE .. "t" .. id .. "-" .. n
  write_log("C-SENT " .. uri)
  -- The item parameter names the new item, so its URI is known whatever the answer.
  return send("PUT", "/api/item?" .. item_query(uri), { ["Content-Type"] = "application/n-triples" },
    item_body(uri, "create", n), { kind = "create", uri = uri })
end

local function update_request()
  -- A random owned item with no update in flight; a read when every one is busy.
  local start = math.random(#owned)
  for step = 0, #owned - 1 do
    local index = owned[((start + step - 1) % #owned) + 1]
    if not updating[index] then
      updating[index] = true
      local uri = seed_uri(index)
      local tag = "t" .. id .. "-u" .. (counter + 1)
      write_log("U-SENT " .. uri .. " " .. tag)
      return send("POST", "/api/item?" .. item_query(uri),
        { ["Content-Type"] = "application/n-triples" }, item_body(uri, tag, index),
        { kind = "update", uri = uri, tag = tag, index = index })
    end
  end
  return read_request()
end

local function search_request()
  local word = WORDS[math.random(#WORDS)]
  return send("GET", "/api/search?collection=" .. collection_q .. "&q=" .. word .. "&size=10", {},
    nil, { kind = "search" })
end

function request()
  -- wrk calls request() once before the run only to check it (never sent): keep that
  -- first call free of write side effects.
  if counter == 0 then return read_request() end
  local roll = math.random(100)
  if roll <= 50 then return read_request() end
  if roll <= 70 then return download_request() end
  if roll <= 85 then return create_request() end
  if roll <= 95 then return update_request() end
  return search_request()
end

local function header(headers, name)
  for key, value in pairs(headers) do
    if key:lower() == name then return value end
  end
  return nil
end

function response(status, headers, body)
  local rid = header(headers, "x-request-id")
  local entry = rid and pending[rid]
  if not entry then
    local key = "unknown " .. status
    counts[key] = (counts[key] or 0) + 1
    return
  end
  pending[rid] = nil
  local key = entry.kind .. " " .. status
  counts[key] = (counts[key] or 0) + 1
  if entry.kind == "create" then
    if status == 201 then
      write_log("C-ACK " .. entry.uri)
    else
      write_log("C-FAIL " .. entry.uri .. " " .. status)
    end
  elseif entry.kind == "update" then
    if status == 204 then
      write_log("U-ACK " .. entry.uri .. " " .. entry.tag)
    else
      write_log("U-FAIL " .. entry.uri .. " " .. entry.tag .. " " .. status)
    end
    updating[entry.index] = nil
  end
end

-- main state: one machine-readable line for the orchestrator
local function json(value)
  if type(value) == "table" then
    local parts = {}
    for k, v in pairs(value) do
      table.insert(parts, string.format("%q", tostring(k)) .. ":" .. json(v))
    end
    return "{" .. table.concat(parts, ",") .. "}"
  elseif type(value) == "number" then
    return string.format("%.17g", value)
  end
  return string.format("%q", tostring(value))
end

function done(summary, latency, requests)
  local merged = {}
  for _, thread in ipairs(threads) do
    for key, n in pairs(thread:get("counts") or {}) do
      merged[key] = (merged[key] or 0) + n
    end
  end
  io.write("LOAD_RESULT ", json({
    duration_us = summary.duration,
    requests = summary.requests,
    bytes = summary.bytes,
    errors = summary.errors,
    latency_us = {
      p50 = latency:percentile(50),
      p90 = latency:percentile(90),
      p99 = latency:percentile(99),
      max = latency.max,
      mean = latency.mean,
    },
    counts = merged,
  }), "\n")
end
