import { range, required } from '@atrium/contract';
import { Box } from '@mui/material';
import { BooleanInput, NumberInput, TextInput } from 'react-admin';
import { useWatch } from 'react-hook-form';
import { FORWARD_TARGET, validateNumbers } from './forwarding';

const validateTargets = validateNumbers(FORWARD_TARGET);
const timeoutValidate = [required, range(1, 600)];

/**
 * A number's (or a forward rule group's) own forward rules (spec comms §3): after no answer within
 * a timeout (10 s by default), and on error (not registered, busy, failed), each with its numbers.
 */
export function ForwardRulesInputs({ source = 'forward_rules', readOnly }: { source?: string; readOnly?: boolean }) {
  const noAnswer = useWatch({ name: `${source}.redirect_if_no_answer.enabled` }) === true;
  const onError = useWatch({ name: `${source}.redirect_if_error.enabled` }) === true;
  return (
    <Box sx={{ width: '100%' }}>
      <BooleanInput source={`${source}.redirect_if_no_answer.enabled`} label="telephony.forward.no_answer" readOnly={readOnly} />
      {noAnswer ? (
        <Box sx={{ display: 'grid', gridTemplateColumns: { xs: '1fr', md: '200px 1fr' }, columnGap: 2, pl: { md: 2 } }}>
          <NumberInput
            source={`${source}.redirect_if_no_answer.timeout`}
            label="telephony.forward.timeout"
            validate={timeoutValidate}
            step={1}
            readOnly={readOnly}
            size="medium"
          />
          <TextInput
            source={`${source}.redirect_if_no_answer.numbers`}
            label="telephony.forward.numbers"
            helperText="telephony.forward.numbers_hint"
            validate={validateTargets}
            readOnly={readOnly}
            autoComplete="off"
          />
        </Box>
      ) : null}
      <BooleanInput source={`${source}.redirect_if_error.enabled`} label="telephony.forward.on_error" readOnly={readOnly} />
      {onError ? (
        <Box sx={{ pl: { md: 2 } }}>
          <TextInput
            source={`${source}.redirect_if_error.numbers`}
            label="telephony.forward.numbers"
            helperText="telephony.forward.numbers_hint"
            validate={validateTargets}
            readOnly={readOnly}
            autoComplete="off"
            fullWidth
          />
        </Box>
      ) : null}
    </Box>
  );
}
