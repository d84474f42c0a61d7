export { claimJobs, completeJob, enqueueJob, failJob, heartbeatJob, HEARTBEAT_SECONDS, parkedJobs, queueStats, retryDelaySeconds, retryParkedJob, STALE_LOCK_SECONDS, type Job, type QueueStats } from './queue.js';
export { JobWorker, type JobHandler, type WorkerOptions } from './worker.js';
