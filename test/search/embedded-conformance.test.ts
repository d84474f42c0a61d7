import { EmbeddedEngine } from '../../src/search/embedded/index.js';
import { runEngineConformance } from './conformance.js';

runEngineConformance('embedded engine', async () => new EmbeddedEngine());
