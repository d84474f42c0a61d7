export * from './users.js';
export * from './tags.js';
export * from './images.js';
export * from './comments.js';
export * from './forums.js';
export * from './filters.js';
export * from './galleries.js';
export * from './operations.js';
