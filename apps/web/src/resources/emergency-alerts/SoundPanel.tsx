import { EMERGENCY_DEFAULTS, EMERGENCY_TONES, type EmergencyAlert, type EmergencyTone } from '@atrium/contract';
import UploadFileIcon from '@mui/icons-material/UploadFile';
import { Alert, Box, Button, Card, CardContent, MenuItem, Stack, TextField, Typography } from '@mui/material';
import { useMutation } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useDataProvider, useRefresh, useTranslate } from 'react-admin';
import type { AtriumDataProvider } from '../../app/dataProvider';
import { errorText, formErrors } from '../../app/errors';
import { useSessionData } from '../../app/SessionContext';
import { useAlert } from '../../app/useAlert';
import { EMERGENCY_API, soundFileProblem } from './shared';

const ACCEPT = 'audio/wav,audio/x-wav,audio/mpeg,audio/ogg,audio/flac,audio/mp4,audio/x-m4a,.wav,.mp3,.ogg,.flac,.m4a';

/** The alert's sound: the file (upload or a generated tone), and a player to hear it. */
export function SoundPanel({ alert }: { alert: EmergencyAlert }) {
  const translate = useTranslate();
  const dp = useDataProvider<AtriumDataProvider>();
  const refresh = useRefresh();
  const notice = useAlert();
  const { can } = useSessionData();
  const input = useRef<HTMLInputElement>(null);
  const [tone, setTone] = useState<EmergencyTone>('siren');
  const [seconds, setSeconds] = useState(5);
  // What was wrong with the last file, kept on screen until the next try (a toast would go by).
  const [problem, setProblem] = useState<string | null>(null);
  const editable = alert.can_edit && can('can_edit_emergency_alerts');
  const done = {
    onSuccess: () => {
      setProblem(null);
      notice.success('emergency.sound.uploaded');
      refresh();
    },
    onError: (e: unknown) => {
      const file = formErrors(e, translate)?.file;
      setProblem(typeof file === 'string' ? file : errorText(e, translate));
      notice.error(e);
    },
  };
  const upload = useMutation({
    mutationFn: (file: File) => {
      const form = new FormData();
      form.append('file', file, file.name);
      return dp.request(`/${EMERGENCY_API}/${alert.id}/file`, { method: 'POST', body: form });
    },
    ...done,
  });
  const generate = useMutation({
    mutationFn: () => dp.request(`/${EMERGENCY_API}/generate`, { method: 'POST', body: { id: alert.id, tone, seconds } }),
    ...done,
  });
  const pick = (file: File | undefined) => {
    if (!file) return;
    const tooBig = soundFileProblem(file);
    if (tooBig) {
      const bounds = { max: EMERGENCY_DEFAULTS.file_max_kb, min: EMERGENCY_DEFAULTS.file_min_kb };
      setProblem(translate(tooBig === 'too_large' ? 'emergency.sound.too_large' : 'emergency.sound.hint', bounds));
      return;
    }
    upload.mutate(file);
  };
  const busy = upload.isPending || generate.isPending;
  return (
    <Card variant="outlined" sx={{ m: 2 }} component="section" aria-labelledby="emergency-sound-title">
      <CardContent>
        <Typography id="emergency-sound-title" variant="h6" component="h2">
          {translate('emergency.sound.title')}
        </Typography>
        <Typography variant="body2" color="text.secondary" gutterBottom>
          {translate('emergency.sound.hint', { min: EMERGENCY_DEFAULTS.file_min_kb, max: EMERGENCY_DEFAULTS.file_max_kb })}
        </Typography>
        {alert.audio_url ? (
          <Box sx={{ my: 1 }}>
            <Typography variant="body2" data-testid="emergency-sound-file">
              {translate('emergency.sound.current', { name: alert.filename ?? '', size: Math.ceil((alert.file_size ?? 0) / 1024) })}
            </Typography>
            {/* biome-ignore lint/a11y/useMediaCaption: an alarm tone has no words to caption */}
            <audio
              key={alert.audio_url}
              controls
              preload="none"
              src={alert.audio_url}
              aria-label={translate('emergency.sound.preview')}
              style={{ width: '100%', maxWidth: 480 }}
            />
          </Box>
        ) : (
          <Typography variant="body2" sx={{ my: 1 }} data-testid="emergency-sound-file">
            {translate('emergency.sound.none')}
          </Typography>
        )}
        {problem ? (
          <Alert severity="error" variant="outlined" sx={{ my: 1 }}>
            {problem}
          </Alert>
        ) : null}
        {editable ? (
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: { md: 'center' }, mt: 1 }}>
            <Button variant="outlined" startIcon={<UploadFileIcon />} disabled={busy} onClick={() => input.current?.click()}>
              {translate('emergency.sound.upload')}
            </Button>
            <input
              ref={input}
              type="file"
              accept={ACCEPT}
              hidden
              data-testid="emergency-sound-input"
              onChange={(e) => {
                pick(e.target.files?.[0]);
                e.target.value = '';
              }}
            />
            <TextField
              select
              size="small"
              label={translate('emergency.sound.tone')}
              value={tone}
              onChange={(e) => setTone(e.target.value as EmergencyTone)}
              sx={{ minWidth: 140 }}
            >
              {EMERGENCY_TONES.map((t) => (
                <MenuItem key={t} value={t}>
                  {translate(`emergency.sound.tones.${t}`)}
                </MenuItem>
              ))}
            </TextField>
            <TextField
              size="small"
              type="number"
              label={translate('emergency.sound.seconds')}
              value={seconds}
              onChange={(e) => setSeconds(Math.min(30, Math.max(1, Number(e.target.value) || 1)))}
              slotProps={{ htmlInput: { min: 1, max: 30 } }}
              sx={{ width: 120 }}
            />
            <Button variant="outlined" disabled={busy} onClick={() => generate.mutate()}>
              {translate('emergency.sound.generate')}
            </Button>
          </Stack>
        ) : null}
      </CardContent>
    </Card>
  );
}
