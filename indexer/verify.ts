/**
 * Drift check: the ids in each index against the rows in Postgres (missing and extra documents),
 * plus a random sample of documents compared field by field with a fresh build. Values are
 * compared as the index sees them (per mapping type; arrays as sets; null, missing and [] alike),
 * so an engine that stores dates or numbers in its own form does not count as drift.
 */
import type { Database } from '../src/db/client.js';
import type { IndexDocument, SearchEngine } from '../src/search/engine.js';
import { indexDefinitions, indexNames, type IndexName } from '../src/search/indexes/index.js';
import { allIds, countRows, loadDocuments } from '../src/contexts/search/documents/load.js';
import type { FieldMapping } from '../src/search/mapping.js';
import { getTableName } from 'drizzle-orm';

export interface VerifyOptions {
  /** Documents per index to compare field by field (default 100; 0 to skip). */
  sample?: number;
  /** Ids read from the engine per search (default 10,000). */
  pageSize?: number;
  /** Ids listed per kind of drift in the report (default 50). */
  maxListed?: number;
}

export interface FieldMismatch {
  id: number;
  /** Fields whose stored value differs from a fresh build. */
  fields: string[];
}

export interface IndexVerifyReport {
  index: IndexName;
  rows: number;
  docs: number;
  /** Rows without a document (first `maxListed`), and how many in all. */
  missing: number[];
  missingCount: number;
  /** Documents without a row. */
  extra: number[];
  extraCount: number;
  sampled: number;
  mismatched: FieldMismatch[];
  ok: boolean;
}

export interface VerifyReport {
  ok: boolean;
  indexes: IndexVerifyReport[];
}

/** Every id in the index, ascending, read by keyset pages (`id > last`, sorted by id). */
export async function engineIds(engine: SearchEngine, index: string, pageSize = 10_000): Promise<number[]> {
  const out: number[] = [];
  let last: number | null = null;
  for (;;) {
    const { ids } = await engine.search(index, {
      query: last === null ? { match_all: {} } : { range: { id: { gt: last } } },
      sort: [{ id: { order: 'asc' } }],
      from: 0,
      size: pageSize,
    });
    for (const id of ids) out.push(id);
    if (ids.length < pageSize) return out;
    last = ids[ids.length - 1]!;
  }
}

type Normal = null | string | number | boolean | Normal[] | { [k: string]: Normal };

function normalizeScalar(type: string, v: unknown): Normal {
  if (v === null || v === undefined) return null;
  switch (type) {
    case 'date': {
      const ms = typeof v === 'number' ? v : Date.parse(String(v));
      return Number.isNaN(ms) ? String(v) : ms;
    }
    case 'integer':
    case 'long':
    case 'float':
      return typeof v === 'number' ? v : Number(v);
    case 'boolean':
      return v === true || v === 'true';
    case 'keyword':
    case 'ip':
    case 'text':
      return String(v);
    default:
      return JSON.stringify(v);
  }
}

const sortKey = (v: Normal) => JSON.stringify(v);

function normalize(mapping: FieldMapping, v: unknown): Normal {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) {
    if (v.length === 0) return null;
    if (v.length === 1) return normalize(mapping, v[0]);
    const items = v.map((x) => normalize(mapping, x)).filter((x) => x !== null);
    items.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
    return items;
  }
  if (mapping.type === 'object' || mapping.type === 'nested') {
    if (typeof v !== 'object') return JSON.stringify(v);
    const out: Record<string, Normal> = {};
    for (const [k, sub] of Object.entries(mapping.properties)) {
      const n = normalize(sub, (v as Record<string, unknown>)[k]);
      if (n !== null) out[k] = n;
    }
    return out;
  }
  return normalizeScalar(mapping.type, v);
}

/** Mapped fields whose values differ between a fresh document and the stored one. */
export function diffDocuments(properties: Record<string, FieldMapping>, fresh: IndexDocument, stored: IndexDocument): string[] {
  const fields: string[] = [];
  for (const [field, mapping] of Object.entries(properties)) {
    const a = normalize(mapping, fresh[field]);
    const b = normalize(mapping, stored[field]);
    if (sortKey(a) !== sortKey(b)) fields.push(field);
  }
  return fields;
}

async function sampleIds(db: Database, index: IndexName, n: number): Promise<number[]> {
  if (n <= 0) return [];
  const table = getTableName(indexDefinitions[index].table);
  const rows = await db.$client.unsafe<{ id: number }[]>(`select id from "${table}" order by random() limit $1`, [n]);
  return rows.map((r) => r.id).sort((a, b) => a - b);
}

export async function verifyIndex(db: Database, engine: SearchEngine, index: IndexName, options: VerifyOptions = {}): Promise<IndexVerifyReport> {
  const maxListed = options.maxListed ?? 50;
  const dbIds: number[] = [];
  for await (const batch of allIds(db, index, { batchSize: 10_000 })) for (const id of batch) dbIds.push(id);
  const idx = await engineIds(engine, index, options.pageSize);
  const docs = await engine.count(index);

  const missing: number[] = [];
  const extra: number[] = [];
  let missingCount = 0;
  let extraCount = 0;
  let i = 0;
  let j = 0;
  while (i < dbIds.length || j < idx.length) {
    const a = dbIds[i];
    const b = idx[j];
    if (a !== undefined && (b === undefined || a < b)) {
      if (missing.length < maxListed) missing.push(a);
      missingCount++;
      i++;
    } else if (b !== undefined && (a === undefined || b < a)) {
      if (extra.length < maxListed) extra.push(b);
      extraCount++;
      j++;
    } else {
      i++;
      j++;
    }
  }

  const mismatched: FieldMismatch[] = [];
  const ids = await sampleIds(db, index, options.sample ?? 100);
  const fresh = await loadDocuments(db, index, ids);
  const stored = await engine.get(index, fresh.map((d) => d.id));
  const properties = indexDefinitions[index].mapping.properties;
  for (const doc of fresh) {
    const old = stored.get(doc.id);
    if (!old) continue; // counted as missing above (or created since)
    const fields = diffDocuments(properties, doc, old);
    if (fields.length > 0) mismatched.push({ id: doc.id, fields });
  }

  const rows = await countRows(db, index);
  return {
    index,
    rows,
    docs,
    missing,
    missingCount,
    extra,
    extraCount,
    sampled: fresh.length,
    mismatched,
    ok: missingCount === 0 && extraCount === 0 && mismatched.length === 0 && docs === idx.length,
  };
}

export async function verify(db: Database, engine: SearchEngine, names: readonly IndexName[] = indexNames, options: VerifyOptions = {}): Promise<VerifyReport> {
  const indexes: IndexVerifyReport[] = [];
  for (const name of names) indexes.push(await verifyIndex(db, engine, name, options));
  return { ok: indexes.every((r) => r.ok), indexes };
}
