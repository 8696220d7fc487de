import assert from 'node:assert/strict';
import { test } from 'node:test';

import { LruCache, memoize } from '../src/index.js';

function recorder() {
  const evicted = [];
  return { evicted, onEvict: (key, value) => evicted.push([key, value]) };
}

test('evicts the least recently used string key', () => {
  const { evicted, onEvict } = recorder();
  const cache = new LruCache({ max: 2, onEvict });
  cache.set('user:1', 'alice').set('user:2', 'bob').set('user:3', 'carol');
  assert.deepEqual(evicted, [['user:1', 'alice']]);
  assert.deepEqual(cache.keys(), ['user:2', 'user:3']);
});

test('evicts the least recently used numeric key', () => {
  const { evicted, onEvict } = recorder();
  const cache = new LruCache({ max: 3, onEvict });
  for (const id of [30, 20, 10]) cache.set(id, `user ${id}`);
  cache.set(5, 'user 5');
  assert.deepEqual(evicted, [['30', 'user 30']]);
  assert.deepEqual(cache.keys(), ['20', '10', '5']);
});

test('get() and set() make a string key the most recently used; peek() and has() do not', () => {
  const cache = new LruCache({ max: 3 });
  cache.set('a', 1).set('b', 2).set('c', 3);
  assert.equal(cache.get('a'), 1);
  assert.equal(cache.peek('b'), 2);
  assert.equal(cache.has('b'), true);
  cache.set('c', 30);
  cache.set('d', 4);
  assert.deepEqual(cache.entries(), [
    ['a', 1],
    ['c', 30],
    ['d', 4],
  ]);
  assert.equal(cache.size, 3);
});

test('get() makes a numeric key the most recently used', () => {
  const { evicted, onEvict } = recorder();
  const cache = new LruCache({ max: 2, onEvict });
  cache.set(1, 'one').set(2, 'two');
  assert.equal(cache.get(1), 'one');
  cache.set(3, 'three');
  assert.deepEqual(evicted, [['2', 'two']]);
  assert.equal(cache.has(1), true);
});

test('lists mixed keys from the least to the most recently used', () => {
  const cache = new LruCache({ max: 10 });
  for (const key of ['b', 20, 'a', '3', 7]) cache.set(key, String(key).toUpperCase());
  cache.get('b');
  assert.deepEqual(cache.keys(), ['20', 'a', '3', '7', 'b']);
  assert.deepEqual(cache.values(), ['20', 'A', '3', '7', 'B']);
});

test('treats numbers and numeric strings as one key, and keys like __proto__ as plain keys', () => {
  const cache = new LruCache({ max: 5 });
  cache.set(42, 'number').set('42', 'string');
  assert.equal(cache.size, 1);
  assert.equal(cache.get(42), 'string');
  for (const key of ['__proto__', 'constructor', 'toString']) cache.set(key, key.length);
  assert.equal(cache.get('__proto__'), 9);
  assert.equal(cache.get('constructor'), 11);
  assert.equal(cache.has('hasOwnProperty'), false);
  assert.equal(cache.get('valueOf', 'none'), 'none');
  assert.equal(cache.size, 4);
});

test('delete(), clear() and replacing a value do not call onEvict', () => {
  const { evicted, onEvict } = recorder();
  const cache = new LruCache({ max: 2, onEvict });
  cache.set('x', 1).set('x', 2).set('y', 3);
  assert.equal(cache.delete('x'), true);
  assert.equal(cache.delete('x'), false);
  cache.clear();
  assert.equal(cache.size, 0);
  assert.deepEqual(cache.keys(), []);
  assert.deepEqual(evicted, []);
});

test('resize() evicts the least recently used entries and validates its argument', () => {
  const { evicted, onEvict } = recorder();
  const cache = new LruCache({ max: 4, onEvict });
  cache.set('k1', 1).set('k2', 2).set('k3', 3).set('k4', 4);
  cache.get('k1');
  cache.resize(2);
  assert.deepEqual(evicted, [
    ['k2', 2],
    ['k3', 3],
  ]);
  assert.equal(cache.max, 2);
  assert.throws(() => cache.resize(0), RangeError);
  assert.throws(() => new LruCache({ max: 1.5 }), RangeError);
  assert.throws(() => cache.set({}, 1), TypeError);
  assert.throws(() => cache.set(Number.NaN, 1), TypeError);
});

test('memoize caches by the joined arguments and counts hits and misses', () => {
  let calls = 0;
  const area = memoize((w, h) => {
    calls += 1;
    return w * h;
  });
  assert.equal(area(2, 3), 6);
  assert.equal(area(2, 3), 6);
  assert.equal(area(3, 2), 6);
  assert.equal(calls, 2);
  assert.deepEqual(area.stats(), { hits: 1, misses: 2, size: 2 });
});

test('memoize keeps the most recently used numeric arguments cached', () => {
  const seen = [];
  const price = memoize(
    (sku) => {
      seen.push(sku);
      return sku * 100;
    },
    { max: 2 },
  );
  price(900);
  price(80);
  price(900); // hit: 900 is now the most recently used
  price(7); // miss: evicts 80, the least recently used
  price(900); // hit
  price(7); // hit
  price(80); // miss again
  assert.deepEqual(seen, [900, 80, 7, 80]);
  assert.deepEqual(price.stats(), { hits: 3, misses: 4, size: 2 });
});

test('after clear(), numeric keys are evicted from the least recently used again', () => {
  const { evicted, onEvict } = recorder();
  const cache = new LruCache({ max: 2, onEvict });
  cache.set('warm-up', 0);
  cache.clear();
  cache.set(9, 'nine').set(3, 'three').set(1, 'one');
  assert.deepEqual(evicted, [['9', 'nine']]);
  assert.deepEqual(cache.keys(), ['3', '1']);
});
