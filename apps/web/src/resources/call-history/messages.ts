export const en = {
  resources: {
    'call-history': {
      name: 'Call |||| Call history',
      fields: {
        id: 'ID',
        created_at: 'Time',
        from: 'From',
        to: 'To',
        from_number: 'From number',
        to_number: 'To number',
        direction: 'Direction',
        type: 'Type',
        status: 'Result',
        duration: 'Duration',
        answered_by: 'Answered by',
        sos: 'SOS calls',
        since: 'Since',
        until: 'Until',
      },
    },
  },
  call_history: {
    title: 'Call history',
    sos: 'SOS',
    statuses: {
      answered: 'Answered',
      noanswer: 'No answer',
      busy: 'Busy',
      cancel: 'Cancelled',
      failed: 'Failed',
    },
    directions: {
      incoming: 'Incoming',
      outgoing: 'Outgoing',
    },
    types: {
      normal: 'Normal',
      awaiting: 'Queued',
    },
  },
};

export const ru: typeof en = {
  resources: {
    'call-history': {
      name: 'Вызов |||| История вызовов',
      fields: {
        id: 'ID',
        created_at: 'Время',
        from: 'Кто звонил',
        to: 'Кому',
        from_number: 'Номер звонившего',
        to_number: 'Номер вызываемого',
        direction: 'Направление',
        type: 'Тип',
        status: 'Результат',
        duration: 'Длительность',
        answered_by: 'Ответил',
        sos: 'SOS-вызовы',
        since: 'С',
        until: 'По',
      },
    },
  },
  call_history: {
    title: 'История вызовов',
    sos: 'SOS',
    statuses: {
      answered: 'Отвечен',
      noanswer: 'Нет ответа',
      busy: 'Занято',
      cancel: 'Отменён',
      failed: 'Сбой',
    },
    directions: {
      incoming: 'Входящий',
      outgoing: 'Исходящий',
    },
    types: {
      normal: 'Обычный',
      awaiting: 'В очереди',
    },
  },
};
