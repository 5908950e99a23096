/** The console's form fields (api/console/forms.ts): an objection goes under the field its issue path names, what was
 * entered is kept escaped, and a password or a secret's value is never filled back. */
import { describe, expect, it } from 'vitest';
import { fieldOfIssue, fieldsOf, formField } from '../../../api/console/forms';

const state = (values: Record<string, string>, fields: Record<string, string> = {}) => ({ values: new URLSearchParams(values), message: 'refused', fields });

describe('console form fields', () => {
  it('names the field of an issue path as the forms name their fields: without where it was and without list indexes', () => {
    expect(fieldOfIssue('body.contact.address.city')).toBe('contact.address.city');
    expect(fieldOfIssue('body.names[3]')).toBe('names');
    expect(fieldOfIssue('path.secretName')).toBe('secretName');
    expect(fieldOfIssue('body')).toBe('');
  });

  it('takes each field\'s first issue, and puts a 400 without issues on the main field', () => {
    const issues = [{ path: 'body.name', message: 'first' }, { path: 'body.name', message: 'second' }, { path: 'body.years', message: 'years' }];
    expect(fieldsOf({ code: 'bad_request', message: 'm', details: { issues } })).toEqual({ name: 'first', years: 'years' });
    expect(fieldsOf({ code: 'reserved_name', message: 'DB is reserved' }, 'secretName')).toEqual({ secretName: 'DB is reserved' });
    expect(fieldsOf({ code: 'reserved_name', message: 'DB is reserved' })).toEqual({});
  });

  it('keeps what was entered, escaped, with the objection under the label; never a password or a secret', () => {
    const s = state({ name: '"><b>x', password: 'hunter2 hunter2', value: 'sk_live_VALUE' }, { name: 'no <good>' });
    const name = formField('f', s, { name: 'name', label: 'Name' }).text;
    expect(name).toBe('<label for="f-name">Name</label><p id="f-name-error" class="field-error">no &lt;good&gt;</p>'
      + '<input id="f-name" name="name" type="text" value="&quot;&gt;&lt;b&gt;x" aria-invalid="true" aria-describedby="f-name-error">');
    expect(formField('f', s, { name: 'password', label: 'Password', type: 'password' }).text).not.toContain('hunter2');
    expect(formField('f', s, { name: 'value', label: 'Value', type: 'textarea', secret: true }).text).not.toContain('sk_live_VALUE');
  });
});
