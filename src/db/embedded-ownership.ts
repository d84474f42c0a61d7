/**
 * Who owns an embedded PostgreSQL: the one process that stops it when it exits. The record is a
 * file beside the cluster (`postgres.owner`: pid and role), read and written under the cluster's
 * lock. Services (`npm start`) supervise the server and take it over from a tool or a dead owner;
 * tools (the CLIs) own only a server they started, and only until a service takes it, so that a
 * CLI run while the service was down never stops the database under a service started meanwhile.
 * The port is remembered too (`postgres.port`): a server started again, by whichever process,
 * listens where the pools of the others already point.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { freePort } from '../lib/free-port.js';

/** Whether a process exists (one of another user counts: signalling it is refused, not missing). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A service supervises the server and takes it over; a tool only uses it. */
export type PostgresRole = 'service' | 'tool';

export interface Owner {
  pid: number;
  role: PostgresRole;
  /** The owning handle: a process may hold two (a test, or a CLI that starts the server twice). */
  token: string;
}

/** A new handle's token for the owner record. */
export const newOwnerToken = (): string => `${process.pid}-${randomBytes(6).toString('hex')}`;

const ownerFile = (dataDir: string) => join(dataDir, 'postgres.owner');
const portFile = (dataDir: string) => join(dataDir, 'postgres.port');

/** The owner on record, alive or not (a bare pid, as earlier versions wrote it, reads as a tool). */
export function readOwner(dataDir: string): Owner | undefined {
  const file = ownerFile(dataDir);
  if (!existsSync(file)) return undefined;
  const [pid, role, token] = readFileSync(file, 'utf8').trim().split(/\s+/);
  const owner = Number(pid);
  if (!Number.isInteger(owner) || owner <= 0) return undefined;
  return { pid: owner, role: role === 'service' ? 'service' : 'tool', token: token ?? '' };
}

export function recordOwner(dataDir: string, role: PostgresRole, token: string): void {
  writeFileSync(ownerFile(dataDir), `${process.pid} ${role} ${token}\n`);
}

export const ownedBy = (dataDir: string, token: string): boolean => readOwner(dataDir)?.token === token;

/**
 * Whether a process of `role` takes over a running server from its owner on record: a service
 * takes an orphan (its owner was killed) or a tool's; a tool takes nothing, since it would stop
 * what it takes when it exits.
 */
export function takesOver(role: PostgresRole, owner: Owner | undefined): boolean {
  if (role === 'tool') return false;
  return !owner || !isAlive(owner.pid) || owner.role === 'tool';
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The port the cluster's server listened on last if it is free, else a free one. */
export async function preferredPort(dataDir: string): Promise<number> {
  const file = portFile(dataDir);
  const last = existsSync(file) ? Number(readFileSync(file, 'utf8').trim()) : 0;
  if (Number.isInteger(last) && last > 0 && (await portIsFree(last))) return last;
  return freePort();
}

export function recordPort(dataDir: string, port: number): void {
  writeFileSync(portFile(dataDir), `${port}\n`);
}
