/**
 * A string-keyed table that remembers the order in which keys were inserted.
 *
 * `order()` lists keys from the oldest to the newest insertion and `oldest()` returns the first
 * one; putting a key that is already present moves it to the newest end.
 */
export class OrderedTable {
  // No prototype: keys such as "__proto__" or "constructor" are ordinary keys here.
  #rows = Object.create(null);
  #count = 0;

  get count() {
    return this.#count;
  }

  contains(key) {
    return Object.hasOwn(this.#rows, key);
  }

  lookup(key) {
    return this.contains(key) ? this.#rows[key] : undefined;
  }

  /** Insert or replace; either way `key` becomes the newest. */
  put(key, value) {
    this.remove(key);
    this.#rows[key] = value;
    this.#count += 1;
  }

  remove(key) {
    if (!this.contains(key)) return false;
    delete this.#rows[key];
    this.#count -= 1;
    return true;
  }

  reset() {
    this.#rows = Object.create(null);
    this.#count = 0;
  }

  order() {
    return Object.keys(this.#rows);
  }

  oldest() {
    return this.order()[0];
  }
}
