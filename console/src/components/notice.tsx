/** What the page just did ("Script discount created."), announced to screen readers. */

/** Shows `message` as a status line; nothing when undefined. */
export function Notice({ message }: { message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p role="status" class="notice">
      {message}
    </p>
  );
}
