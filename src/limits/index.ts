export { ClientGate, type ClientGateOptions, type GateDecision } from './client-gate.js';
export { callerIdentity, limitPolicyFrom, parseRate, RequestLimiter, searchCost, type Budget, type Caller, type LimitDecision, type LimitPolicy } from './limiter.js';
export { TokenBuckets, type BucketPolicy, type TakeResult } from './token-buckets.js';
export { SharedViolations } from './violations.js';
export { SharedBuckets } from './shared-buckets.js';
export { RefusalMemory } from './refusal-memory.js';
