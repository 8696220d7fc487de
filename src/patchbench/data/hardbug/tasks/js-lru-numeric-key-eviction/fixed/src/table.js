/**
 * A string-keyed table that remembers the order in which keys were inserted.
 *
 * `order()` lists keys from the oldest to the newest insertion and `oldest()` returns the first
 * one; putting a key that is already present moves it to the newest end.
 */
export class OrderedTable {
  // A Map keeps every key in insertion order; an object lists integer-like keys ("42") first.
  #rows = new Map();
  #count = 0;

  get count() {
    return this.#count;
  }

  contains(key) {
    return this.#rows.has(key);
  }

  lookup(key) {
    return this.#rows.get(key);
  }

  /** Insert or replace; either way `key` becomes the newest. */
  put(key, value) {
    this.remove(key);
    this.#rows.set(key, value);
    this.#count += 1;
  }

  remove(key) {
    if (!this.contains(key)) return false;
    this.#rows.delete(key);
    this.#count -= 1;
    return true;
  }

  reset() {
    this.#rows.clear();
    this.#count = 0;
  }

  order() {
    return [...this.#rows.keys()];
  }

  oldest() {
    return this.order()[0];
  }
}
