/**
 * The OpenSearch engine given several nodes, against the fake node behind a switchable TCP
 * relay (a second "node" with the same data, which can go down and come back): what the
 * client's connection pool does when a node dies and when it returns. A real cluster losing
 * real nodes is opensearch-cluster.test.ts's business.
 */
import { createConnection, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { docs, fake, images, makeEngine, withFakeNode } from './opensearch-engine-fake.js';

withFakeNode();

/** A relay to the fake node that, while down, takes each connection and drops it at once, as a killed node does. */
interface Relay {
  url: string;
  up: boolean;
  /** Drops the connections it relays and every later one, until `up` is set again. */
  kill(): void;
  /** Connections taken since the start (dropped or relayed). */
  connections: number;
  close(): Promise<void>;
}

const relays: Server[] = [];
afterEach(async () => {
  for (const server of relays.splice(0)) {
    server.close();
  }
});

async function relayTo(target: string): Promise<Relay> {
  const { port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  const relay: Relay = { url: '', up: false, connections: 0, kill: () => {}, close: async () => {} };
  const server = createServer((socket) => {
    relay.connections++;
    if (!relay.up) {
      socket.destroy();
      return;
    }
    const upstream = createConnection(Number(targetPort), '127.0.0.1');
    sockets.add(socket).add(upstream);
    socket.pipe(upstream).pipe(socket);
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  relays.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  relay.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  relay.kill = () => {
    relay.up = false;
    for (const s of sockets) s.destroy();
    sockets.clear();
  };
  relay.close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return relay;
}

describe('several nodes', () => {
  it('a call a node fails by dropping the connection goes to another, and that node is set aside', async () => {
    const relay = await relayTo(fake.url);
    const engine = makeEngine({ node: [relay.url, fake.url] });
    await engine.ensureIndex(images);
    await engine.write('images', docs(1, 2, 3));
    for (let i = 0; i < 10; i++) expect(await engine.count('images')).toBe(3);
    // tried once, then left alone
    expect(relay.connections).toBe(1);
    await relay.close();
  });

  it('a node set aside is pinged after a minute and, answering, takes requests again', async () => {
    const relay = await relayTo(fake.url);
    const engine = makeEngine({ node: [relay.url, fake.url] });
    await engine.ensureIndex(images);
    await engine.write('images', docs(1, 2));
    expect(relay.connections).toBe(1);
    relay.up = true;
    for (let i = 0; i < 4; i++) expect(await engine.count('images')).toBe(2);
    expect(relay.connections).toBe(1);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 61_000 });
    try {
      const before = fake.requests.length;
      for (let i = 0; i < 6; i++) expect(await engine.count('images')).toBe(2);
      // pinged (HEAD /; again by calls made while the first ping was under way), then in turn with the other node
      const pings = fake.requests.slice(before).filter((r) => r.method === 'HEAD' && r.path === '/');
      expect(pings.length).toBeGreaterThan(0);
      expect(relay.connections).toBeGreaterThan(1);
    } finally {
      vi.useRealTimers();
      await relay.close();
    }
  });

  it('every node down: the call fails as unavailable, and the first node back answers the next call at once', async () => {
    const relay = await relayTo(fake.url);
    const other = await relayTo(fake.url);
    relay.up = other.up = true;
    const engine = makeEngine({ node: [relay.url, other.url] });
    await engine.ensureIndex(images);
    await engine.write('images', docs(1));
    relay.kill();
    other.kill();
    await expect(engine.count('images')).rejects.toMatchObject({ unavailable: true });
    // no minute's wait: with every node set aside, the client tries them all again
    other.up = true;
    expect(await engine.count('images')).toBe(1);
    await relay.close();
    await other.close();
  });
});
