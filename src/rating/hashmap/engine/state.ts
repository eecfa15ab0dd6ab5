/**
 * The per-group state of the point being priced (rating.md §5 steps 1-7), in arrays indexed by
 * group number: one instance per service plan, reused from point to point (a generation stamp
 * marks the groups the current point touched, so nothing is cleared between points).
 */
import { Exact, ExactAccumulator } from '../../common/exact.js';
import type { ExplainEntry } from '../../contract/dataframe.js';
import type { Contribution, GroupStates, PlannedMapping, PlannedThreshold, PointPricingState } from './types.js';

const ZERO = Exact.ZERO;
const ONE = Exact.ONE;

/** The groups of one point: flat (most expensive wins), rate (product), threshold winner. */
export class PointState implements PointPricingState {
  private generation = 0;
  /** `stamps[group] === generation`: the current point touched the group. */
  private readonly stamps: Uint32Array;
  /** The touched groups in the order they were first touched (the order their amounts add up in). */
  private readonly order: Int32Array;
  private size = 0;
  private readonly flats: Exact[];
  private readonly flatRanks: Int32Array;
  private readonly rates: Exact[];
  private readonly winners: (PlannedThreshold | undefined)[];
  /** Per group, the mappings applied so far; kept only while explaining. */
  private readonly applied: PlannedMapping[][];
  private explaining = false;
  private readonly total = new ExactAccumulator();
  private readonly amount = new ExactAccumulator();

  /**
   * @param count - the number of groups of the service.
   * @param zeroFlatRank - the rank of a zero flat (every group starts with flat = 0).
   */
  constructor(
    count: number,
    private readonly zeroFlatRank: number,
  ) {
    this.stamps = new Uint32Array(count);
    this.order = new Int32Array(count);
    this.flats = new Array<Exact>(count).fill(ZERO);
    this.flatRanks = new Int32Array(count);
    this.rates = new Array<Exact>(count).fill(ONE);
    this.winners = new Array<PlannedThreshold | undefined>(count).fill(undefined);
    this.applied = Array.from({ length: count }, () => []);
  }

  /** Starts a point: no group touched, or the groups of `start`. */
  begin(start: GroupStates | undefined, explaining: boolean): void {
    if (this.generation === 0xffffffff) {
      this.stamps.fill(0);
      this.generation = 0;
    }
    this.generation += 1;
    this.size = 0;
    this.explaining = explaining;
    if (!start) return;
    const { groups, flats, flatRanks, rates, winners, applied } = start;
    for (let index = 0; index < groups.length; index += 1) {
      const group = groups[index];
      this.stamps[group] = this.generation;
      this.order[this.size++] = group;
      this.flats[group] = flats[index];
      this.flatRanks[group] = flatRanks[index];
      this.rates[group] = rates[index];
      this.winners[group] = winners[index];
      if (explaining) this.applied[group] = applied[index].slice();
    }
  }

  /** The touched groups' states, for {@link begin}. */
  capture(): GroupStates {
    const groups = Array.from(this.order.subarray(0, this.size));
    return {
      groups,
      flats: groups.map((group) => this.flats[group]),
      flatRanks: groups.map((group) => this.flatRanks[group]),
      rates: groups.map((group) => this.rates[group]),
      winners: groups.map((group) => this.winners[group]),
      applied: groups.map((group) => this.applied[group].slice()),
    };
  }

  /** A group's state, created (flat 0, rate 1, no threshold) the first time the point touches it. */
  private touch(group: number): void {
    if (this.stamps[group] === this.generation) return;
    this.stamps[group] = this.generation;
    this.order[this.size++] = group;
    this.flats[group] = ZERO;
    this.flatRanks[group] = this.zeroFlatRank;
    this.rates[group] = ONE;
    this.winners[group] = undefined;
    if (this.explaining) this.applied[group] = [];
  }

  /** A matching mapping: flat → the most expensive flat wins; rate → multiplies the rate. */
  applyMapping(mapping: PlannedMapping): void {
    const group = mapping.group;
    this.touch(group);
    if (mapping.flat) {
      if (mapping.flatRank > this.flatRanks[group]) {
        this.flatRanks[group] = mapping.flatRank;
        this.flats[group] = mapping.cost;
      }
    } else {
      this.rates[group] = this.rates[group].times(mapping.cost);
    }
    if (this.explaining) this.applied[group].push(mapping);
  }

  /** A reached threshold: a candidate of its group, winning over a strictly lower level only. */
  consider(threshold: PlannedThreshold): void {
    const group = threshold.group;
    this.touch(group);
    const current = this.winners[group];
    if (current === undefined || threshold.levelRank > current.levelRank) this.winners[group] = threshold;
  }

  /**
   * Step 6's start, into `amount`: a field-scoped winner adds to the flat or multiplies the rate,
   * then factor = rate × flat (a product's rounding depends on its value only, so the order of
   * the two factors does not matter).
   */
  private factorInto(amount: ExactAccumulator, group: number, fieldWinner: PlannedThreshold | undefined): void {
    const flat = this.flats[group];
    const rate = this.rates[group];
    if (fieldWinner === undefined) {
      if (flat.isZero()) amount.set(ZERO);
      else amount.set(flat).multiply(rate);
    } else if (fieldWinner.flat) {
      amount.set(flat).add(fieldWinner.cost);
      if (!amount.isZero()) amount.multiply(rate);
    } else if (flat.isZero()) {
      amount.set(ZERO);
    } else {
      amount.set(rate).multiply(fieldWinner.cost).multiply(flat);
    }
  }

  /**
   * Steps 6-7, group by group in the order they were touched, as CloudKitty does: amount =
   * factor × quantity; a service-scoped winner is added to the amount (flat, not multiplied by
   * the quantity) or multiplies it (rate); total += amount. Every operation rounded to 28 digits.
   *
   * @param explain - when given, receives one entry per contributing rule.
   * @returns the sum of the group amounts (per collection period).
   */
  finish(quantity: Exact, explain: ExplainEntry[] | undefined): Exact {
    const total = this.total.set(ZERO);
    const amount = this.amount;
    for (let index = 0; index < this.size; index += 1) {
      const group = this.order[index];
      const winner = this.winners[group];
      this.factorInto(amount, group, winner !== undefined && winner.scope === 'field' ? winner : undefined);
      if (!amount.isZero()) amount.multiply(quantity);
      if (winner !== undefined && winner.scope === 'service') {
        if (winner.flat) amount.add(winner.cost);
        else amount.multiply(winner.cost);
      }
      total.add(amount);
      if (explain) this.explainGroup(group, amount.toExact(), explain);
    }
    return total.toExact();
  }

  private explainGroup(group: number, amount: Exact, explain: ExplainEntry[]): void {
    const text = amount.toString();
    for (const mapping of this.applied[group]) explain.push(contribution(mapping, text));
    const winner = this.winners[group];
    if (winner) explain.push(contribution(winner, text));
  }
}

/** The `explain` entry of a rule that contributed `amount` (decimal text) through its group. */
function contribution(rule: PlannedMapping | PlannedThreshold, amount: string): Contribution {
  const { group, ruleId, kind, type } = rule.source;
  return { module: 'hashmap', group, rule_id: ruleId, kind, type, cost: rule.cost.toString(), amount };
}
