export { LruCache } from './lru.js';
export { memoize } from './memoize.js';
