export { EmbeddedEngine, type EmbeddedEngineOptions } from './engine.js';
export { EngineThread } from './engine-thread.js';
