import { Lazy } from 'aws-cdk-lib';

/**
 * The largest of what the seeds sharing one function ask of a setting that is the function's (its
 * timeout, its thread pool), resolved once every seed is known: each seed's own value travels in
 * its resource's properties and bounds its requests, so that changing it updates the function in
 * place instead of moving the seed to other handlers.
 */
export class LargestAsked {
  private readonly asked: number[] = [];

  /** The largest value asked, as a number token the template resolves. */
  public readonly value: number = Lazy.number({ produce: () => Math.max(...this.asked) });

  /** Records what one seed asks. */
  public ask(value: number): void {
    this.asked.push(value);
  }
}
