/** The server's fault for a whole page or form, announced to screen readers. */

/** Shows `message` as an alert; nothing when undefined. */
export function Fault({ message }: { message: string | undefined }) {
  if (message === undefined) return null;
  return (
    <p role="alert" class="fault">
      {message}
    </p>
  );
}
