import { Aggregate } from './aggregate.ts';
import { DomainError } from './errors.ts';

export type CartEvent =
  | { readonly type: 'ItemAdded'; readonly sku: string; readonly qty: number; readonly unitCents: number }
  | { readonly type: 'ItemRemoved'; readonly sku: string; readonly qty: number }
  | { readonly type: 'CouponApplied'; readonly code: string; readonly percentOff: number }
  | { readonly type: 'CheckedOut' };

interface Line {
  qty: number;
  unitCents: number;
}

export class Cart extends Aggregate<CartEvent> {
  // Assigned while events are applied, which can happen before the constructor body has run.
  private lines!: Map<string, Line>;
  private percentOff = 0;
  private checkedOut = false;

  addItem(sku: string, qty: number, unitCents: number): void {
    this.ensureOpen();
    if (!Number.isInteger(qty) || qty <= 0) throw new DomainError(`invalid quantity ${qty}`);
    if (!Number.isInteger(unitCents) || unitCents < 0) throw new DomainError(`invalid price ${unitCents}`);
    const line = this.lines?.get(sku);
    if (line && line.unitCents !== unitCents) {
      throw new DomainError(`${sku} is already in the cart at another price`);
    }
    this.record({ type: 'ItemAdded', sku, qty, unitCents });
  }

  removeItem(sku: string, qty: number): void {
    this.ensureOpen();
    const have = this.quantity(sku);
    if (have === 0) throw new DomainError(`${sku} is not in the cart`);
    if (!Number.isInteger(qty) || qty <= 0 || qty > have) throw new DomainError(`invalid quantity ${qty}`);
    this.record({ type: 'ItemRemoved', sku, qty });
  }

  applyCoupon(code: string, percentOff: number): void {
    this.ensureOpen();
    if (this.percentOff > 0) throw new DomainError('a coupon is already applied');
    if (!(percentOff > 0 && percentOff <= 100)) throw new DomainError(`invalid discount ${percentOff}`);
    this.record({ type: 'CouponApplied', code, percentOff });
  }

  checkout(): void {
    this.ensureOpen();
    if (this.itemCount === 0) throw new DomainError('cannot check out an empty cart');
    this.record({ type: 'CheckedOut' });
  }

  get isCheckedOut(): boolean {
    return this.checkedOut;
  }

  quantity(sku: string): number {
    return this.lines?.get(sku)?.qty ?? 0;
  }

  get itemCount(): number {
    let n = 0;
    for (const line of this.lines?.values() ?? []) n += line.qty;
    return n;
  }

  get subtotalCents(): number {
    let sum = 0;
    for (const line of this.lines?.values() ?? []) sum += line.qty * line.unitCents;
    return sum;
  }

  get totalCents(): number {
    const subtotal = this.subtotalCents;
    return subtotal - Math.round((subtotal * this.percentOff) / 100);
  }

  private ensureOpen(): void {
    if (this.checkedOut) throw new DomainError(`cart ${this.id} is checked out`);
  }

  protected apply(event: CartEvent): void {
    this.lines ??= new Map();
    switch (event.type) {
      case 'ItemAdded': {
        const line = this.lines.get(event.sku);
        if (line) line.qty += event.qty;
        else this.lines.set(event.sku, { qty: event.qty, unitCents: event.unitCents });
        return;
      }
      case 'ItemRemoved': {
        const line = this.lines.get(event.sku);
        if (!line) return;
        line.qty -= event.qty;
        if (line.qty <= 0) this.lines.delete(event.sku);
        return;
      }
      case 'CouponApplied':
        this.percentOff = event.percentOff;
        return;
      case 'CheckedOut':
        this.checkedOut = true;
        return;
      default:
        this.unknown(event);
    }
  }
}
