/**
 * A real S3-compatible server for the tests: S3Proxy (org.gaul:s3proxy from Maven Central, built
 * into tools/s3proxy/target by `mvn package` the first time, about 55 MB) with its filesystem
 * backend, so objects are files in a scratch directory. Started on a free loopback port with
 * signed requests (AWS signature v2 or v4) required, one bucket made, stopped with its data
 * removed. `.ci/run` builds it before the suites; on a machine without the jar the first test file
 * that needs it builds it (Java 17 and Maven needed).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import type { StorageSettings } from '../../src/config.js';
import { s3ClientFor } from '../../src/media/storage-s3.js';

const toolDir = fileURLToPath(new URL('../../tools/s3proxy', import.meta.url));
const jar = join(toolDir, 'target/s3proxy.jar');

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  /** The directory S3Proxy keeps the bucket in (`<dir>/<bucket>/<key>`). */
  dataDir: string;
  /** Storage settings of `s3://<bucket>/<prefix>` on this server. */
  settings(prefix?: string): Extract<StorageSettings, { kind: 's3' }>;
  /** The environment that selects this server (`STORAGE_URL` and the S3 variables). */
  env(prefix?: string): Record<string, string>;
  stop(): Promise<void>;
}

const ACCESS_KEY = 'tagwise-test';
const SECRET_KEY = 'tagwise-test-secret';

function buildServer(): void {
  if (existsSync(jar)) return;
  const result = spawnSync('mvn', ['-B', '-q', 'package'], { cwd: toolDir, stdio: 'inherit' });
  if (result.status !== 0 || !existsSync(jar)) throw new Error(`could not build S3Proxy in ${toolDir} (mvn package)`);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilAnswering(endpoint: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`S3Proxy exited with ${child.exitCode}:\n${log()}`);
    try {
      await fetch(endpoint, { signal: AbortSignal.timeout(1000) });
      return; // any answer (403 to an unsigned request) means it is up
    } catch {
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`S3Proxy did not answer on ${endpoint} within 60 s:\n${log()}`);
}

export async function startS3Server(bucket = 'tagwise-test'): Promise<S3TestServer> {
  buildServer();
  const dir = mkdtempSync(join(tmpdir(), 'tagwise-s3-'));
  const dataDir = join(dir, 'data');
  mkdirSync(dataDir);
  const port = await freePort();
  const endpoint = `http://127.0.0.1:${port}`;
  writeFileSync(
    join(dir, 's3proxy.conf'),
    [
      `s3proxy.endpoint=${endpoint}`,
      's3proxy.authorization=aws-v2-or-v4',
      `s3proxy.identity=${ACCESS_KEY}`,
      `s3proxy.credential=${SECRET_KEY}`,
      'jclouds.provider=filesystem',
      `jclouds.filesystem.basedir=${dataDir}`,
      '',
    ].join('\n'),
  );
  const child = spawn('java', ['-Xmx256m', '-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener', '-XX:TieredStopAtLevel=1', '-jar', jar, '--properties', join(dir, 's3proxy.conf')], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  child.stderr!.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4000)));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilAnswering(endpoint, child, () => output);
    const settings = (prefix = '') => ({
      kind: 's3' as const,
      bucket,
      prefix: prefix === '' ? '' : `${prefix.replace(/\/+$/, '')}/`,
      endpoint,
      region: 'us-east-1',
      accessKeyId: ACCESS_KEY,
      secretAccessKey: SECRET_KEY,
      forcePathStyle: true,
    });
    const client = s3ClientFor(settings());
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    client.destroy();
    return {
      endpoint,
      bucket,
      dataDir,
      settings,
      env: (prefix = '') => ({
        STORAGE_URL: `s3://${bucket}/${prefix}`,
        S3_ENDPOINT: endpoint,
        S3_ACCESS_KEY_ID: ACCESS_KEY,
        S3_SECRET_ACCESS_KEY: SECRET_KEY,
      }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
