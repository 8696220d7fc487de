import type { Aggregate, DomainEvent, EventOf } from './aggregate.ts';
import { DomainError } from './errors.ts';

/** An in-memory event store: one append-only stream of events per aggregate id. */
export class EventStore {
  readonly #streams = new Map<string, DomainEvent[]>();

  /** Append to a stream, refusing when someone else appended since `expectedVersion`. */
  append(id: string, events: readonly DomainEvent[], expectedVersion: number): void {
    const stream = this.#streams.get(id) ?? [];
    if (stream.length !== expectedVersion) {
      throw new DomainError(`concurrent change to ${id}: at version ${stream.length}, not ${expectedVersion}`);
    }
    this.#streams.set(id, [...stream, ...events.map((e) => structuredClone(e))]);
  }

  read(id: string): DomainEvent[] | undefined {
    return this.#streams.get(id)?.map((e) => structuredClone(e));
  }
}

/** An aggregate class: `Cart`, `Account`... */
export type AggregateClass<A extends Aggregate<DomainEvent>> = (new (id: string) => A) &
  Pick<typeof Aggregate, 'open' | 'fromHistory'>;

/** Loads and saves one kind of aggregate through an event store. */
export class Repository<A extends Aggregate<DomainEvent>> {
  constructor(
    private readonly store: EventStore,
    private readonly kind: AggregateClass<A>,
  ) {}

  create(id: string): A {
    if (this.store.read(id)) throw new DomainError(`${id} already exists`);
    return this.kind.open(id);
  }

  load(id: string): A {
    const history = this.store.read(id);
    if (!history) throw new DomainError(`no aggregate ${id}`);
    return this.kind.fromHistory(id, history as EventOf<A>[]);
  }

  save(aggregate: A): void {
    const pending = aggregate.pendingEvents;
    this.store.append(aggregate.id, pending, aggregate.version - pending.length);
    aggregate.markCommitted();
  }
}
