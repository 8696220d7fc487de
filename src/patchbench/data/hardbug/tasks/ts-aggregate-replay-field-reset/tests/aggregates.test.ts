import assert from 'node:assert/strict';
import { test } from 'node:test';

import { Account, Cart, type CartEvent, DomainError, EventStore, Repository } from '../src/index.ts';

const cartHistory: CartEvent[] = [
  { type: 'ItemAdded', sku: 'TEA-01', qty: 2, unitCents: 1250 },
  { type: 'ItemAdded', sku: 'MUG-03', qty: 1, unitCents: 899 },
  { type: 'ItemAdded', sku: 'TEA-01', qty: 1, unitCents: 1250 },
  { type: 'ItemRemoved', sku: 'MUG-03', qty: 1 },
  { type: 'CouponApplied', code: 'SPRING', percentOff: 15 },
];

test('a cart records events as items are added and removed', () => {
  const cart = Cart.open('c-1');
  cart.addItem('TEA-01', 2, 1250);
  cart.addItem('MUG-03', 1, 899);
  cart.removeItem('TEA-01', 1);
  assert.equal(cart.itemCount, 2);
  assert.equal(cart.quantity('TEA-01'), 1);
  assert.equal(cart.subtotalCents, 2149);
  assert.deepEqual(
    cart.pendingEvents.map((e) => e.type),
    ['ItemAdded', 'ItemAdded', 'ItemRemoved'],
  );
});

test('a cart applies one coupon, rounding the discount half up to the cent', () => {
  const cart = Cart.open('c-2');
  cart.addItem('PEN-9', 3, 333);
  cart.applyCoupon('HALF', 50);
  assert.equal(cart.subtotalCents, 999);
  assert.equal(cart.totalCents, 499);
  assert.throws(() => cart.applyCoupon('AGAIN', 10), DomainError);
});

test('a cart refuses invalid quantities, unknown items and changes after checkout', () => {
  const cart = Cart.open('c-3');
  assert.throws(() => cart.checkout(), /empty cart/);
  assert.throws(() => cart.addItem('X', 0, 100), DomainError);
  assert.throws(() => cart.addItem('X', 1, 1.5), DomainError);
  assert.throws(() => cart.removeItem('X', 1), /not in the cart/);
  cart.addItem('X', 1, 100);
  assert.throws(() => cart.addItem('X', 1, 120), /another price/);
  cart.checkout();
  assert.equal(cart.isCheckedOut, true);
  assert.throws(() => cart.addItem('Y', 1, 100), /checked out/);
});

test('a cart rebuilt from its history has the same lines, coupon and totals', () => {
  const cart = Cart.fromHistory('c-4', cartHistory);
  assert.equal(cart.version, 5);
  assert.equal(cart.quantity('TEA-01'), 3);
  assert.equal(cart.quantity('MUG-03'), 0);
  assert.equal(cart.itemCount, 3);
  assert.equal(cart.subtotalCents, 3750);
  assert.equal(cart.totalCents, 3187);
  assert.throws(() => cart.applyCoupon('SECOND', 5), /already applied/);
});

test('an account takes deposits and withdrawals within its overdraft limit', () => {
  const account = Account.open('a-1');
  account.deposit(1_000);
  assert.throws(() => account.withdraw(1_001), /insufficient funds/);
  account.setOverdraftLimit(500);
  account.withdraw(1_400);
  assert.equal(account.balance, -400);
  assert.throws(() => account.withdraw(200), /insufficient funds/);
  assert.throws(() => account.setOverdraftLimit(100), /already below/);
  assert.throws(() => account.deposit(-5), DomainError);
});

test('an account hold reduces the available balance until it is released', () => {
  const account = Account.open('a-2');
  account.deposit(5_000);
  account.placeHold('h-9', 4_000);
  assert.equal(account.available, 1_000);
  assert.throws(() => account.withdraw(2_000), /insufficient funds/);
  assert.throws(() => account.placeHold('h-9', 10), /already exists/);
  account.releaseHold('h-9');
  assert.equal(account.available, 5_000);
  assert.throws(() => account.releaseHold('h-9'), /no hold/);
});

test('a checked-out cart loaded from the store keeps its totals and still refuses changes', () => {
  const carts = new Repository(new EventStore(), Cart);
  const cart = carts.create('c-5');
  cart.addItem('TEA-01', 2, 1250);
  cart.applyCoupon('SPRING', 10);
  cart.checkout();
  carts.save(cart);
  const again = carts.load('c-5');
  assert.equal(again.version, 3);
  assert.equal(again.itemCount, 2);
  assert.equal(again.totalCents, 2250);
  assert.equal(again.isCheckedOut, true);
  assert.throws(() => again.addItem('MUG-03', 1, 899), /checked out/);
});

test('an account loaded from the store keeps its balance, open holds and overdraft limit', () => {
  const accounts = new Repository(new EventStore(), Account);
  const account = accounts.create('a-3');
  account.deposit(10_000);
  account.setOverdraftLimit(1_000);
  account.withdraw(2_500);
  account.placeHold('h-1', 3_000);
  account.placeHold('h-2', 1_000);
  account.releaseHold('h-1');
  accounts.save(account);
  const again = accounts.load('a-3');
  assert.equal(again.balance, 7_500);
  assert.equal(again.overdraftLimit, 1_000);
  assert.deepEqual(again.openHolds, ['h-2']);
  assert.equal(again.available, 6_500);
  assert.throws(() => again.withdraw(7_600), /insufficient funds/);
  again.withdraw(7_500);
  assert.equal(again.balance, 0);
});

test('saving appends only new events and refuses a concurrent writer', () => {
  const carts = new Repository(new EventStore(), Cart);
  const cart = carts.create('c-6');
  cart.addItem('CUP-1', 1, 450);
  carts.save(cart);
  const first = carts.load('c-6');
  const second = carts.load('c-6');
  assert.deepEqual(first.pendingEvents, []);
  assert.equal(first.version, 1);
  first.addItem('CUP-2', 1, 300);
  second.addItem('CUP-3', 1, 200);
  carts.save(first);
  assert.equal(first.version, 2);
  assert.deepEqual(first.pendingEvents, []);
  assert.throws(() => carts.save(second), /concurrent change to c-6/);
  assert.throws(() => carts.create('c-6'), /already exists/);
});

test('loading refuses unknown ids and histories with unknown event types', () => {
  const carts = new Repository(new EventStore(), Cart);
  assert.throws(() => carts.load('nope'), /no aggregate nope/);
  const bad = [{ type: 'ItemTeleported' }] as unknown as CartEvent[];
  assert.throws(() => Cart.fromHistory('c-7', bad), /unknown event type "ItemTeleported"/);
  assert.throws(() => Account.open(''), /needs an id/);
});

test('a cart constructed directly never claims a version its state does not reflect', () => {
  // A JavaScript caller may pass a history to the public constructor: the cart must then either hold
  // the state of that history at its version, or ignore it (an empty cart at version 0).
  const cart = Reflect.construct(Cart, ['c-8', cartHistory]) as Cart;
  if (cart.version === 0) {
    assert.equal(cart.itemCount, 0);
  } else {
    assert.equal(cart.version, 5);
    assert.equal(cart.itemCount, 3);
    assert.equal(cart.subtotalCents, 3750);
  }
});
