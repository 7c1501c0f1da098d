import { Navigate, useParams } from 'react-router-dom';

/** The spec's /announces/:id/edit: the edit page lives at /announces/:id. */
export function AnnounceEditRedirect() {
  const { id } = useParams();
  return <Navigate to={`/announces/${encodeURIComponent(id ?? '')}`} replace />;
}
