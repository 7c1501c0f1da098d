import { useCallback } from 'react';
import { useTranslate } from 'react-admin';
import { useIdentifierFormat } from '../../app/identifier-value';
import { CreatePage } from '../../app/kit/RecordPage';
import { IdentifierForm } from './IdentifierForm';
import { useIdentifierRights } from './shared';
import { identifierBody } from './transform';

export function IdentifierCreate() {
  const translate = useTranslate();
  const format = useIdentifierFormat();
  const rights = useIdentifierRights();
  const transform = useCallback((values: Record<string, unknown>) => identifierBody(values, format), [format]);
  return (
    <CreatePage allowed={rights.create} title={translate('identifiers.create_title')} transform={transform}>
      <IdentifierForm mode="create" />
    </CreatePage>
  );
}
