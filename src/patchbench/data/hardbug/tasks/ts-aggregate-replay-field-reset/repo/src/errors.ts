/** A command that the aggregate's rules refuse. */
export class DomainError extends Error {
  override readonly name = 'DomainError';
}
