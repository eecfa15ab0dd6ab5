/**
 * The calculator's controls both of its forms share: the quantity with its unit, and the tenant
 * (with the tenants the rules are written for, when the configuration could be read).
 */

/** The quantity used in one collection period and its optional unit, side by side. */
export function QuantityInputs({
  quantity,
  unit,
  onQuantity,
  onUnit,
}: {
  /** Decimal text as typed (the server checks it). */
  quantity: string;
  unit: string;
  onQuantity: (quantity: string) => void;
  onUnit: (unit: string) => void;
}) {
  return (
    <div class="calculator-quantity">
      <div>
        <label for="calculator-quantity">Quantity</label>
        <input id="calculator-quantity" type="text" inputMode="decimal" value={quantity} onInput={(event) => onQuantity(event.currentTarget.value)} />
      </div>
      <div>
        <label for="calculator-unit">Unit (optional)</label>
        <input id="calculator-unit" type="text" value={unit} onInput={(event) => onUnit(event.currentTarget.value)} />
      </div>
    </div>
  );
}

/**
 * The tenant (Keystone project) whose own rules apply too. `known`, when given, are offered in a
 * list; without it (the configuration unreadable) the tenant is typed.
 */
export function TenantInput({ tenant, known, onTenant }: { tenant: string; known?: string[]; onTenant: (tenant: string) => void }) {
  return (
    <div>
      <label for="calculator-tenant">Tenant (optional)</label>
      <input
        id="calculator-tenant"
        type="text"
        list={known === undefined ? undefined : 'calculator-known-tenants'}
        autocomplete="off"
        value={tenant}
        aria-describedby="calculator-tenant-hint"
        onInput={(event) => onTenant(event.currentTarget.value)}
      />
      {known !== undefined && (
        <datalist id="calculator-known-tenants">
          {known.map((name) => (
            <option key={name} value={name} />
          ))}
        </datalist>
      )}
      <small id="calculator-tenant-hint" class="hint">
        A tenant’s own rules replace the global ones with the same key; empty: global rules only.
      </small>
    </div>
  );
}
