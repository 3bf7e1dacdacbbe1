/**
 * Kubernetes name and label grammars (apimachinery's validation package), returning kube's error texts.
 * Each check returns the list of problems (empty when valid).
 */
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

export const DNS1123_LABEL_MAX_LENGTH = 63;
export const DNS1123_SUBDOMAIN_MAX_LENGTH = 253;
export const LABEL_VALUE_MAX_LENGTH = 63;
export const QUALIFIED_NAME_MAX_LENGTH = 63;

function maxLength(value: string, max: number): string[] {
  return value.length > max ? [`must be no more than ${max} characters`] : [];
}

export function checkDns1123Label(value: string): string[] {
  const problems = maxLength(value, DNS1123_LABEL_MAX_LENGTH);
  if (!DNS1123_LABEL.test(value)) {
    problems.push(
      "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return problems;
}

export function checkDns1123Subdomain(value: string): string[] {
  const problems = maxLength(value, DNS1123_SUBDOMAIN_MAX_LENGTH);
  if (!DNS1123_SUBDOMAIN.test(value)) {
    problems.push(
      "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
    );
  }
  return problems;
}

export function checkDns1035Label(value: string): string[] {
  const problems = maxLength(value, DNS1123_LABEL_MAX_LENGTH);
  if (!DNS1035_LABEL.test(value)) {
    problems.push(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  }
  return problems;
}

/** A qualified name: optional DNS-subdomain prefix and '/', then a name part of at most 63 characters. */
export function checkQualifiedName(value: string): string[] {
  const parts = value.split('/');
  let name = value;
  const problems: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0] ?? '';
    name = parts[1] ?? '';
    if (prefix.length === 0) problems.push('prefix part must be non-empty');
    else problems.push(...checkDns1123Subdomain(prefix).map((p) => `prefix part ${p}`));
  } else if (parts.length > 2) {
    return [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ];
  }
  if (name.length === 0) problems.push('name part must be non-empty');
  else if (name.length > QUALIFIED_NAME_MAX_LENGTH) {
    problems.push(`name part must be no more than ${QUALIFIED_NAME_MAX_LENGTH} characters`);
  }
  if (name.length > 0 && !QUALIFIED_NAME_PART.test(name)) {
    problems.push(
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    );
  }
  return problems;
}

/** A label value: empty, or at most 63 characters of the qualified-name-part shape. */
export function checkLabelValue(value: string): string[] {
  const problems = maxLength(value, LABEL_VALUE_MAX_LENGTH);
  if (value.length > 0 && !QUALIFIED_NAME_PART.test(value)) {
    problems.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  }
  return problems;
}
