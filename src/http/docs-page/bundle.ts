/** The documentation page's script (client.ts), bundled for the browser by ../pages/browser-bundle.ts. */
import { bundleBrowserScript } from '../pages/browser-bundle.js';

export function bundleDocsScript(openapiPath: string): string {
  return bundleBrowserScript(new URL('./client.ts', import.meta.url), { OPENAPI_PATH: JSON.stringify(openapiPath) });
}
