export { EmbeddedEngine, type EmbeddedEngineOptions } from './engine.js';
export { EngineThread } from './thread/engine-thread.js';
