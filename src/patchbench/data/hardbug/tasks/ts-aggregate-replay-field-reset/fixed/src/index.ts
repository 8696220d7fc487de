export { Aggregate, type DomainEvent, type EventOf } from './aggregate.ts';
export { Cart, type CartEvent } from './cart.ts';
export { Account, type AccountEvent } from './account.ts';
export { EventStore, Repository, type AggregateClass } from './repository.ts';
export { DomainError } from './errors.ts';
