import { EmbeddedEngine } from '../../src/search/embedded/public.js';
import { runEngineConformance } from './conformance.js';

runEngineConformance('embedded engine', async () => new EmbeddedEngine());
