import { generatePassword } from '@atrium/contract';
import AutorenewIcon from '@mui/icons-material/Autorenew';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import { IconButton, InputAdornment, TextField, type TextFieldProps } from '@mui/material';
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
                // The browser's own tooltip (title): MUI's Tooltip brings its positioning engine, some
                // 8 KB compressed, onto the sign-in page, which shares this field and has a 250 KB budget.
                <IconButton
                  aria-label={translate('registration.generate_password')}
                  title={translate('registration.generate_password')}
                  onClick={() => {
                    onGenerate(generatePassword(12));
                    setShown(true);
                  }}
                  edge="end"
                >
                  <AutorenewIcon />
                </IconButton>
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
