import { OrderedTable } from './table.js';

/**
 * A least-recently-used cache.
 *
 * Entries are kept in recency order, least recently used first: reading or writing a key moves it
 * to the end, and eviction takes from the front.
 */
export class LruCache {
  #max;
  #onEvict;
  #table = new OrderedTable();

  /**
   * @param {{ max: number, onEvict?: (key: string, value: unknown) => void }} options
   */
  constructor({ max, onEvict } = {}) {
    LruCache.#checkMax(max);
    if (onEvict !== undefined && typeof onEvict !== 'function') {
      throw new TypeError('onEvict must be a function');
    }
    this.#max = max;
    this.#onEvict = onEvict ?? null;
  }

  static #checkMax(max) {
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(`max must be a positive integer, got ${max}`);
    }
  }

  static #key(key) {
    if (typeof key === 'number' && Number.isFinite(key)) return String(key);
    if (typeof key === 'string') return key;
    throw new TypeError(`keys must be strings or finite numbers, got ${typeof key}`);
  }

  get size() {
    return this.#table.count;
  }

  get max() {
    return this.#max;
  }

  has(key) {
    return this.#table.contains(LruCache.#key(key));
  }

  /** The value without touching recency. */
  peek(key, fallback = undefined) {
    const k = LruCache.#key(key);
    return this.#table.contains(k) ? this.#table.lookup(k) : fallback;
  }

  get(key, fallback = undefined) {
    const k = LruCache.#key(key);
    if (!this.#table.contains(k)) return fallback;
    const value = this.#table.lookup(k);
    this.#table.put(k, value); // now the most recently used
    return value;
  }

  set(key, value) {
    this.#table.put(LruCache.#key(key), value);
    this.#trim();
    return this;
  }

  delete(key) {
    return this.#table.remove(LruCache.#key(key));
  }

  clear() {
    this.#table.reset();
  }

  resize(max) {
    LruCache.#checkMax(max);
    this.#max = max;
    this.#trim();
  }

  keys() {
    return this.#table.order();
  }

  values() {
    return this.keys().map((k) => this.#table.lookup(k));
  }

  entries() {
    return this.keys().map((k) => [k, this.#table.lookup(k)]);
  }

  #trim() {
    while (this.#table.count > this.#max) {
      const oldest = this.#table.oldest();
      const value = this.#table.lookup(oldest);
      this.#table.remove(oldest);
      if (this.#onEvict) this.#onEvict(oldest, value);
    }
  }
}
