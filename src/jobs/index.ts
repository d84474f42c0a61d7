export { claimJobs, completeJob, enqueueJob, enqueueJobs, failJob, heartbeatJob, HEARTBEAT_SECONDS, parkedJobs, queueStats, removeParkedJob, retryDelaySeconds, retryParkedJob, retryParkedJobs, STALE_LOCK_SECONDS, type Job, type QueueStats } from './queue.js';
export { JobWorker, type JobHandler, type WorkerOptions } from './worker.js';
