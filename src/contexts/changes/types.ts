import type { changeLog } from '../../db/schema/index.js';

type ChangeLogRow = typeof changeLog.$inferSelect;

/** One sealed row of the change log. */
export interface ChangeRow {
  seq: number;
  xact: string;
  kind: ChangeLogRow['kind'];
  recordId: number;
  change: ChangeLogRow['change'];
  detail: Record<string, unknown> | null;
  createdAt: Date;
}

/** The rows one transaction wrote, in order; `seq` is its last row's. */
export interface ChangeGroup {
  seq: number;
  xact: string;
  rows: ChangeRow[];
}
