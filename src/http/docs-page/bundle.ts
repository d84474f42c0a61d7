/** The documentation page's script (client.ts), bundled for the browser by ../browser-bundle.ts. */
import { bundleBrowserScript } from '../browser-bundle.js';

export function bundleDocsScript(openapiPath: string): string {
  return bundleBrowserScript(new URL('./client.ts', import.meta.url), { OPENAPI_PATH: JSON.stringify(openapiPath) });
}
