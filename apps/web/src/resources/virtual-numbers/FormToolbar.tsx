import { DeleteWithConfirmButton, SaveButton, Toolbar } from 'react-admin';

/**
 * The toolbar of the telephony forms: Save unless the record is read-only, and Delete (with a
 * confirmation naming the record) on an existing record the user may delete. False when neither.
 */
export function formToolbar({
  readOnly,
  deletable,
  confirmTitle,
  confirmContent,
}: {
  readOnly: boolean;
  deletable: boolean;
  confirmTitle: string;
  confirmContent: string;
}) {
  if (readOnly && !deletable) return false;
  return (
    <Toolbar sx={{ justifyContent: 'space-between' }}>
      {readOnly ? <span /> : <SaveButton />}
      {deletable ? (
        <DeleteWithConfirmButton mutationMode="pessimistic" confirmTitle={confirmTitle} confirmContent={confirmContent} />
      ) : null}
    </Toolbar>
  );
}
