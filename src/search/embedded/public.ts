// What the rest of the project imports of the embedded engine: the engine in this thread and the
// engine on a worker thread of its own. (Named apart from the folder `index/`, one physical index.)
export { EmbeddedEngine, type EmbeddedEngineOptions } from './engine.js';
export { EngineThread } from './thread/engine-thread.js';
