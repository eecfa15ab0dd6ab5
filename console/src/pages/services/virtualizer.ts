/**
 * A `@tanstack/virtual-core` virtualizer as a Preact hook, for a list of fixed-height rows inside
 * a scrolling element: only the rows in view (and a few around) are rendered, so ten thousand
 * rules scroll as lightly as ten.
 */
import { elementScroll, observeElementOffset, observeElementRect, Virtualizer } from '@tanstack/virtual-core';
import type { RefObject } from 'preact';
import { useLayoutEffect, useReducer, useState } from 'preact/hooks';

/** Rows rendered beyond each edge of the view, so a fast scroll shows no blank. */
const OVERSCAN = 10;

/**
 * A virtualizer over `count` rows of `rowHeight` pixels, scrolling inside `scrollElement`; the
 * component re-renders whenever the rows in view change. Read `getVirtualItems()` (each item's
 * `index` and `start`, in pixels from the top of the list) and `getTotalSize()` (pixels).
 */
export function useFixedRowVirtualizer(count: number, rowHeight: number, scrollElement: RefObject<HTMLElement>): Virtualizer<HTMLElement, HTMLElement> {
  const [, rerender] = useReducer((renders: number) => renders + 1, 0);
  const options = {
    count,
    getScrollElement: () => scrollElement.current,
    estimateSize: () => rowHeight,
    overscan: OVERSCAN,
    observeElementRect,
    observeElementOffset,
    scrollToFn: elementScroll,
    onChange: () => rerender(undefined),
  };
  const [virtualizer] = useState(() => new Virtualizer<HTMLElement, HTMLElement>(options));
  virtualizer.setOptions(options);
  useLayoutEffect(() => virtualizer._didMount(), [virtualizer]);
  useLayoutEffect(() => virtualizer._willUpdate());
  return virtualizer;
}
