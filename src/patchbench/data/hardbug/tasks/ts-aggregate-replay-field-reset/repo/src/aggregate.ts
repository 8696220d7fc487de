import { DomainError } from './errors.ts';

export interface DomainEvent {
  readonly type: string;
}

/** The event type of an aggregate class. */
export type EventOf<A> = A extends Aggregate<infer E> ? E : never;

/**
 * The base of every event-sourced aggregate: state is only ever changed by applying events,
 * whether they are replayed from the store or recorded by a command.
 */
export abstract class Aggregate<E extends DomainEvent> {
  readonly id: string;
  #version = 0;
  #pending: E[] = [];

  constructor(id: string, history: readonly E[] = []) {
    if (!id) throw new DomainError('an aggregate needs an id');
    this.id = id;
    for (const event of history) {
      this.apply(event);
      this.#version += 1;
    }
  }

  /** A new aggregate, with no history. */
  static open<A extends Aggregate<DomainEvent>>(this: new (id: string) => A, id: string): A {
    return new this(id);
  }

  /** The aggregate that the stored events describe. */
  static fromHistory<A extends Aggregate<DomainEvent>>(
    this: new (id: string, history: readonly EventOf<A>[]) => A,
    id: string,
    history: readonly EventOf<A>[],
  ): A {
    return new this(id, history);
  }

  /** The number of events applied so far, replayed or recorded. */
  get version(): number {
    return this.#version;
  }

  /** Events recorded since the aggregate was opened, rebuilt or last committed. */
  get pendingEvents(): readonly E[] {
    return [...this.#pending];
  }

  markCommitted(): void {
    this.#pending = [];
  }

  /** Apply a new event and keep it for the store. */
  protected record(event: E): void {
    this.apply(event);
    this.#version += 1;
    this.#pending.push(event);
  }

  /** Change the state for one event; called for replayed and recorded events alike. */
  protected abstract apply(event: E): void;

  protected unknown(event: never): never {
    throw new DomainError(`unknown event type ${JSON.stringify((event as DomainEvent).type)}`);
  }
}
