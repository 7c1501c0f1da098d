import { timeZones } from '@atrium/contract';
import { AutocompleteInput, type AutocompleteInputProps } from 'react-admin';

let choices: { id: string; name: string }[] | undefined;
/** The IANA zones of this browser, as picker choices (read once). */
const zoneChoices = () => {
  // Browsers list the named zones but not UTC itself, which the server stores by default.
  choices ??= ['UTC', ...timeZones().filter((z) => z !== 'UTC')].map((z) => ({ id: z, name: z.replace(/_/g, ' ') }));
  return choices;
};

/** A time zone picker (`Europe/Moscow`), searchable; the server refuses any other value. */
export function TimeZoneInput({ source, ...props }: { source: string } & Omit<AutocompleteInputProps, 'source' | 'choices'>) {
  return <AutocompleteInput source={source} choices={zoneChoices()} {...props} />;
}
