/**
 * What a page's layout gets wrong at a window's width, measured in the browser (issue 26, "The
 * console, at the widths people use"): an action the user cannot reach, a text cut where it
 * matters, a page that scrolls sideways.
 */
import type { Page } from 'playwright-core';

/**
 * The attribute that lets an element cut its text: only free prose (a description) or a checksum
 * that carries its whole text in `title` as well. Names, values, groups, tenants, headers and actions never may.
 */
export const MAY_CUT_ATTRIBUTE = 'data-may-cut';

/**
 * The faults of the page as it stands, each a sentence naming the element (its tag, classes and
 * text), empty when there is none:
 * - the document scrolls sideways (its width is more than the window's);
 * - an action (button, link, summary, a control's submit) is outside the window sideways, or
 *   hidden by an ancestor that clips it (a cell's `overflow: hidden`, or a scroll box it sits
 *   outside of sideways: an action must not need a sideways scroll to be seen); an ancestor that
 *   scrolls up and down may hold it below its fold (the page's own scrolling reaches it);
 * - an action's one-word label is broken over lines;
 * - a text input's value is wider than the input;
 * - an element's text is cut (its `scrollWidth` above its `clientWidth`, or its `scrollHeight`
 *   above its `clientHeight` as a line clamp does, while its overflow is hidden or clipped, with or
 *   without an ellipsis), but for elements marked
 *   {@link MAY_CUT_ATTRIBUTE} whose `title` is their whole text.
 */
export async function layoutFaults(page: Page): Promise<string[]> {
  return page.evaluate((mayCut) => {
    const faults: string[] = [];
    const describe = (element: Element) => {
      const classes = element.getAttribute('class');
      const text = (element.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, 60);
      return `<${element.tagName.toLowerCase()}${classes ? ` class="${classes}"` : ''}> "${text}"`;
    };
    const clips = (style: CSSStyleDeclaration, axis: 'x' | 'y') => {
      const overflow = axis === 'x' ? style.overflowX : style.overflowY;
      return overflow !== 'visible';
    };
    const shown = (element: Element) => {
      const style = getComputedStyle(element);
      return element.getClientRects().length > 0 && style.visibility !== 'hidden';
    };

    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1) faults.push(`the page scrolls sideways: ${root.scrollWidth} px in a window of ${root.clientWidth} px`);

    const actions = document.querySelectorAll('button, a[href], summary, input[type="submit"], input[type="button"], [role="button"]');
    for (const action of actions) {
      if (!shown(action)) continue;
      const rect = action.getBoundingClientRect();
      if (rect.left < -1 || rect.right > root.clientWidth + 1) {
        faults.push(`${describe(action)} is outside the window sideways (${Math.round(rect.left)}–${Math.round(rect.right)} px of ${root.clientWidth})`);
        continue;
      }
      for (let ancestor = action.parentElement; ancestor !== null && ancestor !== document.body; ancestor = ancestor.parentElement) {
        const style = getComputedStyle(ancestor);
        const box = ancestor.getBoundingClientRect();
        const left = box.left + ancestor.clientLeft;
        const right = left + ancestor.clientWidth;
        if (clips(style, 'x') && (rect.left < left - 1 || rect.right > right + 1)) {
          faults.push(
            `${describe(action)} is cut sideways by ${describe(ancestor)} (${Math.round(rect.left)}–${Math.round(rect.right)} px, shown ${Math.round(left)}–${Math.round(right)})`,
          );
          break;
        }
        const scrollsVertically = style.overflowY === 'auto' || style.overflowY === 'scroll';
        const top = box.top + ancestor.clientTop;
        const bottom = top + ancestor.clientHeight;
        if (clips(style, 'y') && !scrollsVertically && (rect.top < top - 1 || rect.bottom > bottom + 1)) {
          faults.push(`${describe(action)} is cut by ${describe(ancestor)}, which does not scroll`);
          break;
        }
      }
      if (action.scrollWidth > action.clientWidth + 1 && clips(getComputedStyle(action), 'x')) faults.push(`${describe(action)} has its label cut`);
      // A label broken over lines ("Edi / t") reads as two words.
      const label = document.createRange();
      label.selectNodeContents(action);
      const lines = new Set([...label.getClientRects()].filter((box) => box.width > 0).map((box) => Math.round(box.top)));
      if (lines.size > 1 && !(action.textContent ?? '').trim().includes(' '))
        faults.push(`${describe(action)} has its one-word label broken over ${lines.size} lines`);
    }

    // A typed value (a tenant's project id) hidden past the input's edge.
    for (const input of document.querySelectorAll<HTMLInputElement>('input[type="text"], input[type="search"], input:not([type])')) {
      if (shown(input) && input.value !== '' && input.scrollWidth > input.clientWidth + 1)
        faults.push(`the value "${input.value.slice(0, 60)}" of input #${input.id} is cut: ${input.scrollWidth} px in ${input.clientWidth} px`);
    }

    for (const element of document.body.querySelectorAll('*')) {
      if (!shown(element) || (element.textContent ?? '').trim() === '') continue;
      const style = getComputedStyle(element);
      const cutsSideways = (style.overflowX === 'hidden' || style.overflowX === 'clip') && element.scrollWidth > element.clientWidth + 1;
      // A clamped text (`-webkit-line-clamp`, a fixed height) is cut below its last shown line.
      const cutsBelow = (style.overflowY === 'hidden' || style.overflowY === 'clip') && element.scrollHeight > element.clientHeight + 1;
      const cutsText = cutsSideways || cutsBelow;
      if (!cutsText) continue;
      // An element whose own box holds no text (a frame around a scroll box) is not what is cut.
      if (element.closest('.cm-editor')) continue;
      if (element.hasAttribute(mayCut) && element.getAttribute('title') === (element.textContent ?? '').trim()) continue;
      faults.push(
        cutsSideways
          ? `${describe(element)} is cut: ${element.scrollWidth} px of text in ${element.clientWidth} px`
          : `${describe(element)} is cut below: ${element.scrollHeight} px of text in ${element.clientHeight} px`,
      );
    }
    return faults;
  }, MAY_CUT_ATTRIBUTE);
}
