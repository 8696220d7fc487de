import { Aggregate } from './aggregate.ts';
import { DomainError } from './errors.ts';

export type AccountEvent =
  | { readonly type: 'Deposited'; readonly cents: number }
  | { readonly type: 'Withdrawn'; readonly cents: number }
  | { readonly type: 'OverdraftLimitSet'; readonly cents: number }
  | { readonly type: 'HoldPlaced'; readonly holdId: string; readonly cents: number }
  | { readonly type: 'HoldReleased'; readonly holdId: string };

export class Account extends Aggregate<AccountEvent> {
  private balanceCents = 0;
  private overdraftCents = 0;
  // Assigned while events are applied, which can happen before the constructor body has run.
  private holds!: Map<string, number>;

  get balance(): number {
    return this.balanceCents;
  }

  get overdraftLimit(): number {
    return this.overdraftCents;
  }

  /** The balance minus open holds. */
  get available(): number {
    let held = 0;
    for (const cents of this.holds?.values() ?? []) held += cents;
    return this.balanceCents - held;
  }

  get openHolds(): string[] {
    return [...(this.holds?.keys() ?? [])];
  }

  deposit(cents: number): void {
    Account.checkAmount(cents);
    this.record({ type: 'Deposited', cents });
  }

  withdraw(cents: number): void {
    Account.checkAmount(cents);
    this.ensureCovered(cents);
    this.record({ type: 'Withdrawn', cents });
  }

  setOverdraftLimit(cents: number): void {
    if (!Number.isInteger(cents) || cents < 0) throw new DomainError(`invalid limit ${cents}`);
    if (this.available < -cents) throw new DomainError(`${this.id} is already below that limit`);
    this.record({ type: 'OverdraftLimitSet', cents });
  }

  placeHold(holdId: string, cents: number): void {
    Account.checkAmount(cents);
    if (this.holds?.has(holdId)) throw new DomainError(`hold ${holdId} already exists`);
    this.ensureCovered(cents);
    this.record({ type: 'HoldPlaced', holdId, cents });
  }

  releaseHold(holdId: string): void {
    if (!this.holds?.has(holdId)) throw new DomainError(`no hold ${holdId}`);
    this.record({ type: 'HoldReleased', holdId });
  }

  private ensureCovered(cents: number): void {
    if (this.available - cents < -this.overdraftCents) {
      throw new DomainError(`insufficient funds in ${this.id}`);
    }
  }

  private static checkAmount(cents: number): void {
    if (!Number.isInteger(cents) || cents <= 0) throw new DomainError(`invalid amount ${cents}`);
  }

  protected apply(event: AccountEvent): void {
    this.holds ??= new Map();
    switch (event.type) {
      case 'Deposited':
        this.balanceCents += event.cents;
        return;
      case 'Withdrawn':
        this.balanceCents -= event.cents;
        return;
      case 'OverdraftLimitSet':
        this.overdraftCents = event.cents;
        return;
      case 'HoldPlaced':
        this.holds.set(event.holdId, event.cents);
        return;
      case 'HoldReleased':
        this.holds.delete(event.holdId);
        return;
      default:
        this.unknown(event);
    }
  }
}
