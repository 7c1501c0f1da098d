export const en = {
  resources: {
    outbox: {
      name: 'Mail |||| Outbox',
      fields: { to: 'To', subject: 'Subject', created_at: 'Created', status: 'Status', error: 'Last error', attempts: 'Attempts' },
    },
  },
  outbox: {
    title: 'Outbox',
    actions: 'Actions',
    retry: 'Retry',
    retry_to: 'Send the mail to %{to} again',
    delete: 'Delete',
    delete_to: 'Delete the mail to %{to}',
    status: {
      queued: 'Being sent',
      sent: 'Sent',
      error: 'Failed',
      stored: 'Kept: no SMTP configured',
    },
    after_retry: {
      queued: 'The mail to %{to} is being sent',
      sent: 'The mail to %{to} was sent',
      error: 'The mail to %{to} could not be sent: see the last error',
      stored: 'No SMTP is configured: the mail to %{to} stays in the outbox',
    },
  },
};

export const ru: typeof en = {
  resources: {
    outbox: {
      name: 'Письмо |||| Исходящие',
      fields: { to: 'Кому', subject: 'Тема', created_at: 'Создано', status: 'Состояние', error: 'Последняя ошибка', attempts: 'Попытки' },
    },
  },
  outbox: {
    title: 'Исходящие письма',
    actions: 'Действия',
    retry: 'Повторить',
    retry_to: 'Отправить письмо для %{to} ещё раз',
    delete: 'Удалить',
    delete_to: 'Удалить письмо для %{to}',
    status: {
      queued: 'Отправляется',
      sent: 'Отправлено',
      error: 'Ошибка',
      stored: 'Сохранено: SMTP не настроен',
    },
    after_retry: {
      queued: 'Письмо для %{to} отправляется',
      sent: 'Письмо для %{to} отправлено',
      error: 'Письмо для %{to} не отправлено: см. последнюю ошибку',
      stored: 'SMTP не настроен: письмо для %{to} остаётся в исходящих',
    },
  },
};
