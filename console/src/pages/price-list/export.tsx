/**
 * The price list's export: fetched with the console's header (Keystone mode needs it), then
 * offered as a file through a Blob URL, and ready to be edited in the page's document.
 */
import { useEffect, useState } from 'preact/hooks';
import { messageOf } from '../../api/client.js';
import { Fault } from '../../components/fault.js';
import { exportPriceList, MEDIA_TYPES, type DocumentFormat } from '../../api/price-list.js';

/** A fetched export: its text and the Blob URL the download link points at. */
interface Exported {
  format: DocumentFormat;
  text: string;
  /** The text's size in bytes (UTF-8). */
  bytes: number;
  url: string;
}

/** The file name of an export in `format`. */
function fileName(format: DocumentFormat): string {
  return `price-list.${format}`;
}

/** The export section; `onEdit` puts an export's text in the document being prepared. */
export function PriceListExport({ onEdit }: { onEdit: (text: string, format: DocumentFormat) => void }) {
  const [format, setFormat] = useState<DocumentFormat>('yaml');
  const [exported, setExported] = useState<Exported | undefined>();
  const [fault, setFault] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  // Each export's Blob URL is released when a newer one replaces it, or the page goes.
  useEffect(() => (exported === undefined ? undefined : () => URL.revokeObjectURL(exported.url)), [exported]);

  const fetchExport = async () => {
    setBusy(true);
    setFault(undefined);
    try {
      const text = await exportPriceList(format);
      const blob = new Blob([text], { type: MEDIA_TYPES[format] });
      setExported({ format, text, bytes: blob.size, url: URL.createObjectURL(blob) });
    } catch (error) {
      setFault(messageOf(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="price-list-export-heading">
      <h2 id="price-list-export-heading">Export</h2>
      <p class="hint">Every rule in force now and every rule scheduled after it, as one document to review, keep in Git, edit and apply again.</p>
      <div class="price-list-row">
        <label for="price-list-export-format">Format</label>
        <select id="price-list-export-format" value={format} onChange={(event) => setFormat(event.currentTarget.value as DocumentFormat)}>
          <option value="yaml">YAML</option>
          <option value="json">JSON</option>
        </select>
        <button type="button" disabled={busy} onClick={() => void fetchExport()}>
          {busy ? 'Exporting…' : 'Export'}
        </button>
      </div>
      <Fault message={fault} />
      {exported !== undefined && (
        <p class="price-list-row" aria-live="polite">
          <a href={exported.url} download={fileName(exported.format)}>
            Download {fileName(exported.format)}
          </a>
          <span class="hint">({exported.bytes.toLocaleString('en')} bytes)</span>
          <button type="button" onClick={() => onEdit(exported.text, exported.format)}>
            Edit it below
          </button>
        </p>
      )}
    </section>
  );
}
