/** The string formats kube's OpenAPI validator checks; unknown formats pass (as in kube). */
const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  datetime: /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uuid: /^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/,
  byte: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  ipv4: /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  email: /^[^@\s]+@[^@\s]+\.[^@\s]+$/,
  hostname: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i,
};

export function checkFormat(format: string, value: string): boolean {
  const pattern = Object.hasOwn(FORMATS, format) ? FORMATS[format] : undefined;
  if (pattern === undefined) return true;
  if (!pattern.test(value)) return false;
  if (format === 'date-time' || format === 'datetime' || format === 'date')
    return !Number.isNaN(Date.parse(value));
  return true;
}
