import { Badge, Box, Fab, Tooltip } from '@mui/material';
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from 'react';
import { useTranslate } from 'react-admin';

/** A floating button (the dialer and others): shown bottom-right, ordered by `order`. */
export interface FloatingButton {
  id: string;
  icon: ReactNode;
  /** Accessible name and tooltip. */
  label: string;
  /** idle: plain; active: accent colour (e.g. a call in progress); alert: attention; disabled. */
  state?: 'idle' | 'active' | 'alert' | 'disabled';
  order?: number;
  badge?: number | string | null;
  onClick: () => void;
}

interface Registry {
  set(button: FloatingButton): void;
  remove(id: string): void;
}

const RegistryContext = createContext<Registry | null>(null);
const ButtonsContext = createContext<FloatingButton[]>([]);

export function FloatingButtonsProvider({ children }: { children: ReactNode }) {
  const [buttons, setButtons] = useState<FloatingButton[]>([]);
  const registry = useMemo<Registry>(
    () => ({
      set: (button) => setButtons((prev) => [...prev.filter((b) => b.id !== button.id), button]),
      remove: (id) => setButtons((prev) => prev.filter((b) => b.id !== id)),
    }),
    [],
  );
  return (
    <RegistryContext.Provider value={registry}>
      <ButtonsContext.Provider value={buttons}>{children}</ButtonsContext.Provider>
    </RegistryContext.Provider>
  );
}

/** Shows `button` while the calling component is mounted; pass a new object to update it. */
export function useFloatingButton(button: FloatingButton | null) {
  const registry = useContext(RegistryContext);
  const remove = useCallback((id: string) => registry?.remove(id), [registry]);
  useEffect(() => {
    if (!button || !registry) return;
    registry.set(button);
  }, [button, registry]);
  const id = button?.id;
  useEffect(() => () => (id ? remove(id) : undefined), [id, remove]);
}

const FAB_SIZE = 56;
const GAP = 16;
const EDGE = 24;

/** The height the floating buttons take at the bottom of the screen (0 without any), for pages to end above. */
export function useFloatingButtonsRoom(): number {
  const count = useContext(ButtonsContext).length;
  return count ? EDGE + count * (FAB_SIZE + GAP) : 0;
}

const COLORS = { idle: 'primary', active: 'secondary', alert: 'error', disabled: 'default' } as const;

/** The container of floating buttons. */
export function FloatingButtons() {
  const translate = useTranslate();
  const buttons = useContext(ButtonsContext);
  if (buttons.length === 0) return null;
  return (
    // A landmark of its own: whatever sits outside every landmark is missed by those who move by them.
    <Box
      component="aside"
      aria-label={translate('app.floating_buttons')}
      sx={{
        position: 'fixed',
        right: EDGE,
        bottom: EDGE,
        display: 'flex',
        flexDirection: 'column-reverse',
        gap: `${GAP}px`,
        zIndex: (t) => t.zIndex.speedDial,
      }}
    >
      {[...buttons]
        .sort((a, b) => (a.order ?? 0) - (b.order ?? 0))
        .map((b) => (
          <Tooltip key={b.id} title={b.label} placement="left">
            <span>
              <Fab
                color={COLORS[b.state ?? 'idle']}
                aria-label={b.label}
                disabled={b.state === 'disabled'}
                onClick={b.onClick}
                data-floating-button={b.id}
              >
                <Badge badgeContent={b.badge ?? undefined} color="error">
                  {b.icon}
                </Badge>
              </Fab>
            </span>
          </Tooltip>
        ))}
    </Box>
  );
}
