import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';

const tls = {
  cert: readFileSync(new URL('../fixtures/tls/cert.pem', import.meta.url)),
  key: readFileSync(new URL('../fixtures/tls/key.pem', import.meta.url)),
};

export interface TestHttpsServer {
  origin: string;
  /** `127.0.0.1:PORT`, for FETCH_ALLOW_HOSTS. */
  hostPort: string;
  close(): Promise<void>;
}

/** A local https server (certificate trusted through NODE_EXTRA_CA_CERTS in the test setup). */
export async function startHttpsServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<TestHttpsServer> {
  const server: Server = createServer(tls, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `https://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
