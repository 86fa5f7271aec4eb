/**
 * US dollars for reports: cents (thousands grouped) from a cent up, else two significant digits (a
 * probe run costs fractions of a cent, and $0.00 would hide that it costs anything).
 */
export function usd(value: number): string {
  if (value === 0 || Math.abs(value) >= 0.01) return `$${value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const decimals = Math.min(12, 1 - Math.floor(Math.log10(Math.abs(value))));
  return `$${value.toFixed(decimals)}`;
}
