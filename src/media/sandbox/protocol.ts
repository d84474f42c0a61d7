/** The messages between a sandbox pool (pool.ts) and its children (child.ts). */
import type { MediaErrorField, MediaErrorMap } from '../errors.js';
import type { SandboxTask } from './tasks.js';

export interface ChildRequest {
  id: number;
  task: SandboxTask;
  bytes: Uint8Array;
  options: unknown;
}

export type ChildReply =
  | { ready: true }
  | { id: number; ok: true; value: unknown }
  | { id: number; ok: false; media: { field: MediaErrorField; message: string; errors: MediaErrorMap } }
  | { id: number; ok: false; message: string };
