/**
 * The project's programs run in a child process from the repository's root, as `npm run` runs
 * them (built once per test run: `programs.ts`).
 */
import { spawn } from 'node:child_process';
import { programArgs, ROOT } from './programs.js';

/** The environment of a child: none of the test run's own settings (vitest sets BASE_URL=/), then `env`. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const { BASE_URL: _b, CDN_URL: _c, DATABASE_URL: _d, OPENSEARCH_URL: _o, RATE_LIMITS: _r, ...inherited } = process.env;
  return { ...inherited, ...env };
}

export interface ToolRun {
  /** The exit status; null when the child was killed (after `timeoutMs`). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a program of the project (`file` relative to the root) to its end. */
export function runTool(file: string, args: string[], env: Record<string, string>, timeoutMs = 120_000): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...programArgs(file), ...args], { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
