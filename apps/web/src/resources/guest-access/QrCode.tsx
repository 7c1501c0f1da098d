import { Box, Skeleton } from '@mui/material';
import QRCode from 'qrcode';
import { useEffect, useState } from 'react';

/** The text as a QR code image (SVG, drawn in the browser), `size` pixels wide. */
export function QrCode({ value, size = 240, alt }: { value: string; size?: number; alt: string }) {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    setSrc(null);
    QRCode.toString(value, { type: 'svg', margin: 2, errorCorrectionLevel: 'M' })
      .then((svg) => live && setSrc(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`))
      .catch(() => live && setSrc(null));
    return () => {
      live = false;
    };
  }, [value]);
  // White behind the code in dark mode too: readers need the contrast.
  return (
    <Box sx={{ width: size, height: size, bgcolor: '#fff', borderRadius: 1, lineHeight: 0 }}>
      {src ? <img src={src} alt={alt} width={size} height={size} /> : <Skeleton variant="rectangular" width={size} height={size} />}
    </Box>
  );
}
