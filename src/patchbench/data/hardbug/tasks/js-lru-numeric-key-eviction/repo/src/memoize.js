import { LruCache } from './lru.js';

const defaultKey = (...args) => args.join('|');

/**
 * Cache the results of `fn` in a least-recently-used cache.
 *
 * @param {(...args: any[]) => any} fn
 * @param {{ max?: number, key?: (...args: any[]) => string | number }} [options]
 */
export function memoize(fn, { max = 100, key = defaultKey } = {}) {
  const cache = new LruCache({ max });
  let hits = 0;
  let misses = 0;

  function memoized(...args) {
    const k = key(...args);
    if (cache.has(k)) {
      hits += 1;
      return cache.get(k);
    }
    misses += 1;
    const result = fn.apply(this, args);
    cache.set(k, result);
    return result;
  }

  memoized.stats = () => ({ hits, misses, size: cache.size });
  memoized.cache = cache;
  return memoized;
}
