import { generatePassword } from '@atrium/contract';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import { IconButton, InputAdornment, TextField, type TextFieldProps, Tooltip } from '@mui/material';
import { useTranslate } from 'ra-core';
import { useState } from 'react';

/** A password input with show/hide and, optionally, the random password generator (spec core §9). */
export function PasswordField({ onGenerate, ...props }: TextFieldProps & { onGenerate?: (password: string) => void }) {
  const translate = useTranslate();
  const [shown, setShown] = useState(false);
  return (
    <TextField
      {...props}
      type={shown ? 'text' : 'password'}
      slotProps={{
        ...props.slotProps,
        input: {
          endAdornment: (
            <InputAdornment position="end">
              {onGenerate ? (
                <Tooltip title={translate('registration.generate_password')}>
                  <IconButton
                    aria-label={translate('registration.generate_password')}
                    onClick={() => {
                      onGenerate(generatePassword(12));
                      setShown(true);
                    }}
                    edge="end"
                  >
                    <AutorenewIcon />
                  </IconButton>
                </Tooltip>
              ) : null}
              <IconButton
                aria-label={translate('registration.show_password')}
                aria-pressed={shown}
                onClick={() => setShown((s) => !s)}
                edge="end"
              >
                {shown ? <VisibilityOffIcon /> : <VisibilityIcon />}
              </IconButton>
            </InputAdornment>
          ),
        },
      }}
    />
  );
}
