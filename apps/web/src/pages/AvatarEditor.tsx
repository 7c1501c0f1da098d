import DeleteIcon from '@mui/icons-material/Delete';
import { Avatar, Button, Stack } from '@mui/material';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslate } from 'react-admin';
import { PROFILE_KEY } from '../app/authProvider';
import { http } from '../app/http';
import { croppedImageForm, ImageCropDialog, ImageFileButton } from '../app/kit/ImageCropDialog';
import { useAlert } from '../app/useAlert';

/** The profile picture: upload with a square cropper (POST /profile/avatar), or delete it. */
export function AvatarEditor({ url, name }: { url: string | null; name: string }) {
  const translate = useTranslate();
  const alert = useAlert();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);

  const upload = useMutation({
    // The picture is cropped here; x, y and size describe the part of it the server keeps (all of it).
    mutationFn: (blob: Blob) => http.request('/profile/avatar', { method: 'POST', body: croppedImageForm(blob) }),
    onSuccess: () => {
      setFile(null);
      alert.done();
      return queryClient.invalidateQueries({ queryKey: PROFILE_KEY });
    },
    onError: alert.error,
  });
  const remove = useMutation({
    mutationFn: () => http.request('/profile/avatar', { method: 'DELETE' }),
    onSuccess: () => {
      alert.done();
      return queryClient.invalidateQueries({ queryKey: PROFILE_KEY });
    },
    onError: alert.error,
  });

  return (
    <Stack direction="row" spacing={2} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <Avatar src={url ?? undefined} alt={translate('profile.avatar')} sx={{ width: 88, height: 88, fontSize: 36 }}>
        {name.slice(0, 1)}
      </Avatar>
      <Stack spacing={1}>
        <ImageFileButton label={translate('profile.upload_avatar')} onFile={setFile} sx={{ whiteSpace: 'nowrap' }} />
        {url ? (
          <Button color="error" startIcon={<DeleteIcon />} onClick={() => remove.mutate()} disabled={remove.isPending}>
            {translate('profile.delete_avatar')}
          </Button>
        ) : null}
      </Stack>
      <ImageCropDialog
        file={file}
        title="profile.crop_title"
        zoomLabel="profile.zoom"
        busy={upload.isPending}
        onClose={() => setFile(null)}
        onCropped={(blob) => upload.mutate(blob)}
        onError={alert.error}
      />
    </Stack>
  );
}
