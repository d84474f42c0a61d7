export { EmbeddedEngine, type EmbeddedEngineOptions } from './engine.js';
