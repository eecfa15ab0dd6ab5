/**
 * Sending the calculator's usage to `POST /v2/rating/quote` (api/quote.ts) and keeping what came
 * back: the priced usage as the page shows it, or the server's fault, and whether a quote is on
 * its way. Both calculator forms (with the configuration's names and quote-only) share it.
 */
import { useCallback, useState } from 'preact/hooks';
import { messageOf } from '../../api/client.js';
import { quoteUsage, type QuoteAnswer } from '../../api/quote.js';
import { quoteBody, type ContributionRow, type UsageForm } from './quote.js';
import type { QuoteResult } from './result.js';

/** The quote of the form's usage as it stands, and how to ask for another. */
export interface QuoteSubmission {
  /** The last usage priced; undefined before the first quote or after a fault. */
  result: QuoteResult | undefined;
  /** Why the last quote failed (the server's message, or the form's own); undefined otherwise. */
  fault: string | undefined;
  /** Whether a quote is on its way. */
  busy: boolean;
  /**
   * Prices `usage`; `explain` turns the answer into the explanation's rows (it may read the
   * configuration again to name a rule created since the page loaded it).
   */
  submit: (usage: UsageForm, explain: (answer: QuoteAnswer) => ContributionRow[] | Promise<ContributionRow[]>) => Promise<void>;
  /** Shows a fault found before sending (the form's own check), dropping the last result. */
  refuse: (message: string) => void;
  /** Forgets the last result and fault (the usage described changed). */
  clear: () => void;
}

/** The calculator's quote: one at a time, its result or fault kept for the page to show. */
export function useQuoteSubmission(): QuoteSubmission {
  const [result, setResult] = useState<QuoteResult | undefined>();
  const [fault, setFault] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = useCallback(async (usage: UsageForm, explain: (answer: QuoteAnswer) => ContributionRow[] | Promise<ContributionRow[]>) => {
    setBusy(true);
    setFault(undefined);
    try {
      const answer = await quoteUsage(quoteBody(usage));
      const rows = await explain(answer);
      setResult({ total: answer.total, ratedAt: answer.period.begin, tenant: usage.tenant === '' ? undefined : usage.tenant, rows });
    } catch (error) {
      setResult(undefined);
      setFault(messageOf(error));
    } finally {
      setBusy(false);
    }
  }, []);

  const refuse = useCallback((message: string) => {
    setResult(undefined);
    setFault(message);
  }, []);

  const clear = useCallback(() => {
    setResult(undefined);
    setFault(undefined);
  }, []);

  return { result, fault, busy, submit, refuse, clear };
}
